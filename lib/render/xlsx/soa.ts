import { finished } from 'node:stream/promises';
import ExcelJS from 'exceljs';
import type { DocumentControl, DocumentModel } from '../../domain/document-model.js';
import { updatedMonth } from '../../domain/oscal.js';
import { APPLICABILITY_LABELS, labelOf, ORIGIN_LABELS, OUTCOME_LABELS, SEVERITY_LABELS, STATUS_LABELS, topicOf, WORKFLOW_LABELS } from '../labels.js';
import type { Renderer } from '../renderer.js';
import { writeCover } from './cover.js';
import { cellText, dataValidations, isDraft, listOf, MARKING_FILL, markedHeaderFooter, TEXT_FORMAT } from './sheet.js';

interface Column {
  header: string;
  width: number;
  /** Nothing, or no text, leaves the cell blank. */
  value: (c: DocumentControl) => string | number | null;
  /** A count or a revision: a number cell (Excel sums and sorts it), not text. */
  numeric?: true;
  /** The labels a person may choose in a column they edit: a list validation on its cells. */
  list?: readonly string[];
}

/** The statuses a person may set: the external-provider status is the server's to set, never a person's. */
const CHOOSABLE_STATUSES = Object.entries(STATUS_LABELS).flatMap(([code, label]) => (code === 'ec' ? [] : [label]));

const COLUMNS: readonly Column[] = [
  { header: 'Identifier', width: 13, value: (c) => c.label },
  { header: 'Type', width: 10, value: (c) => (c.kind === 'principle' ? 'Principle' : 'Control') },
  { header: 'Title', width: 30, value: topicOf },
  { header: 'Statement', width: 60, value: (c) => c.statement },
  { header: 'Guideline', width: 26, value: (c) => c.path[0] ?? null },
  { header: 'Section', width: 26, value: (c) => c.path[1] ?? null },
  { header: 'Revision', width: 10, value: (c) => c.revision, numeric: true },
  { header: 'Last updated', width: 13, value: (c) => updatedMonth(c.updated) },
  { header: 'Applicable', width: 12, value: (c) => labelOf(APPLICABILITY_LABELS, c.applicability), list: Object.values(APPLICABILITY_LABELS) },
  { header: 'Applicability origin', width: 24, value: (c) => labelOf(ORIGIN_LABELS, c.applicability_origin) },
  { header: 'Applicability comment', width: 42, value: (c) => c.applicability_comment },
  { header: 'Implementation status', width: 22, value: (c) => labelOf(STATUS_LABELS, c.implementation_status), list: CHOOSABLE_STATUSES },
  { header: 'Implementation summary', width: 42, value: (c) => c.implementation_summary },
  { header: 'Implementation description', width: 60, value: (c) => c.implementation_description },
  { header: 'Workflow state', width: 20, value: (c) => labelOf(WORKFLOW_LABELS, c.workflow_state) },
  { header: 'Assessed outcome', width: 18, value: (c) => labelOf(OUTCOME_LABELS, c.assessment.outcome) },
  { header: 'Severity', width: 11, value: (c) => labelOf(SEVERITY_LABELS, c.assessment.severity) },
  { header: 'Evidence items', width: 10, value: (c) => c.evidence.length, numeric: true },
  { header: 'Essential Eight', width: 15, value: (c) => c.essential_eight.join(', ') },
];

/** A cell's value: text through cellText, numbers as they are, and nothing (not an empty string) for no value. */
function cellValue(value: string | number | null): string | number | null {
  if (typeof value === 'number') return value;
  const text = cellText(value);
  return text === '' ? null : text;
}

/** The marking row above the header row: what every screen shows even when nobody prints. */
const TITLE_ROW = 1;
const HEADER_ROW = 2;
const column = (index: number): string => String.fromCharCode(65 + index);

function writeControls(workbook: ExcelJS.stream.xlsx.WorkbookWriter, model: DocumentModel): void {
  const first = HEADER_ROW + 1;
  const last = HEADER_ROW + Math.max(model.controls.length, 1);
  const end = column(COLUMNS.length - 1);
  const sheet = workbook.addWorksheet('Statement of Applicability', {
    views: [{ state: 'frozen', xSplit: 1, ySplit: HEADER_ROW, topLeftCell: `B${first}`, activeCell: `B${first}` }],
    headerFooter: markedHeaderFooter(model, model.document.title),
    // The header row repeats on every printed page (the marking is in the page header already).
    pageSetup: { orientation: 'landscape', paperSize: 9, fitToPage: true, fitToWidth: 1, fitToHeight: 0, printTitlesRow: `${HEADER_ROW}:${HEADER_ROW}` },
  });
  sheet.autoFilter = `A${HEADER_ROW}:${end}${last}`;
  sheet.columns = COLUMNS.map((c) => ({
    width: c.width,
    style: { alignment: { wrapText: true, vertical: 'top' }, numFmt: c.numeric ? '0' : TEXT_FORMAT },
  }));
  for (const [i, c] of COLUMNS.entries()) {
    if (c.list) dataValidations(sheet).add(`${column(i)}${first}:${column(i)}${last}`, listOf(c.list, c.header));
  }

  const marking = [model.marking.name, model.document.title, model.system.name, ...(isDraft(model) ? ['DRAFT'] : [])].join('  |  ');
  const title = sheet.addRow([cellText(marking)]);
  sheet.mergeCells(`A${TITLE_ROW}:${end}${TITLE_ROW}`);
  title.font = { bold: true, size: 12, color: isDraft(model) ? { argb: 'FFC00000' } : undefined };
  title.getCell(1).fill = MARKING_FILL;
  title.commit();

  const header = sheet.addRow(COLUMNS.map((c) => cellText(c.header)));
  header.font = { bold: true };
  header.alignment = { wrapText: true, vertical: 'middle' };
  header.eachCell((cell) => {
    cell.fill = MARKING_FILL;
    cell.border = { bottom: { style: 'thin' } };
  });
  header.commit();

  for (const control of model.controls) sheet.addRow(COLUMNS.map((c) => cellValue(c.value(control)))).commit();
  sheet.commit();
}

/**
 * The Statement of Applicability: a cover sheet, then every control in catalogue order with its
 * topic, its catalogue revision and last-updated month, applicability (origin and comment),
 * implementation (status, summary and description), workflow state, assessed outcome and
 * severity, evidence count and Essential Eight levels. Only the columns a person edits (whether
 * the control applies, its implementation status) validate their cells; a cell without a value is
 * blank, so that Excel's (Blanks) filter finds it. Written with exceljs's streaming writer
 * straight to the sink.
 */
export const soaRenderer: Renderer = {
  format: 'xlsx',
  mediaType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  extension: 'xlsx',
  async render(model, out) {
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: true });
    workbook.creator = model.document.generated_by.name;
    workbook.title = `${model.document.title}: ${model.system.name}`;
    workbook.created = new Date(model.document.generated_at);
    writeCover(workbook, model);
    writeControls(workbook, model);
    // Commit zips the sheets and ends `out`, but it waits only for the sink's finish or error: a sink
    // closed early (an aborted upload) would leave it waiting for ever, and `finished` rejects then.
    await Promise.all([workbook.commit(), finished(out)]);
  },
};
