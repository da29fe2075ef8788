import type { DataValidation, Worksheet } from 'exceljs';
import type { DocumentModel } from '../../domain/document-model.js';

/** Excel refuses (and offers to repair) a workbook with a cell longer than this. */
export const CELL_LIMIT = 32_767;
const TRUNCATED = ' […truncated: the full text is in the controls export]';

/**
 * Every cell the workbook gets goes through here: a string, never an object, so that exceljs
 * stores it as a text cell and no value of the model, whatever it begins with (=, +, -, @, a tab),
 * can become a formula. Text columns also carry the text number format, so that Excel keeps such a
 * value text when someone edits the cell. Line ends become LF: an XML reader turns a CR into LF
 * anyway, so the sheet says what it will be read as. Text beyond Excel's cell limit is cut, and
 * says so.
 */
export function cellText(value: string | null | undefined): string {
  const text = (value ?? '').replace(/\r\n?/g, '\n');
  if (text.length <= CELL_LIMIT) return text;
  let cut = CELL_LIMIT - TRUNCATED.length;
  // Never split a surrogate pair: half a character is not text XML can hold.
  if (/[\uD800-\uDBFF]/.test(text[cut - 1]!)) cut -= 1;
  return text.slice(0, cut) + TRUNCATED;
}

/** Excel's number format for text: what the cell holds is shown and edited as text. */
export const TEXT_FORMAT = '@';

/** Header and footer codes start with &; the model's own ampersands must be doubled to stay text. */
const headerText = (value: string): string => value.replace(/&/g, '&&');

/** A draft carries DRAFT visibly when its generation asked for the watermark; final output never does. */
export const isDraft = (model: DocumentModel): boolean => model.document.output === 'draft' && model.options.draft_watermark;

/** The protective marking centred in the header and footer of every printed page, with DRAFT and page numbers. */
export function markedHeaderFooter(model: DocumentModel, title: string) {
  const marking = `&C&"-,Bold"${headerText(model.marking.name)}`;
  const draft = isDraft(model) ? '&R&"-,Bold"DRAFT' : '';
  return {
    oddHeader: `&L${headerText(title)}${marking}${draft}`,
    oddFooter: `&L${headerText(model.system.name)}${marking}&RPage &P of &N`,
  };
}

/** The data validations of a sheet, which the streaming writer keeps but exceljs's typings leave out. */
export function dataValidations(sheet: Worksheet): { add(range: string, validation: DataValidation): void } {
  return (sheet as Worksheet & { dataValidations: { add(range: string, validation: DataValidation): void } }).dataValidations;
}

/** A list validation of the labels a column may hold, refusing anything else. */
export const listOf = (labels: readonly string[], title: string): DataValidation => ({
  type: 'list',
  allowBlank: true,
  formulae: [`"${labels.join(',')}"`],
  showErrorMessage: true,
  errorStyle: 'stop',
  errorTitle: title,
  error: `Choose one of: ${labels.join(', ')}.`,
});

export const MARKING_FILL = { type: 'pattern' as const, pattern: 'solid' as const, fgColor: { argb: 'FFE7E6E6' } };
