import { describe, expect, it } from 'vitest';
import type { DocumentModel } from '../../../../lib/domain/document-model.js';
import { CELL_LIMIT, cellText, isDraft, listOf, markedHeaderFooter } from '../../../../lib/render/xlsx/sheet.js';
import { documentModel } from '../../../support/document-model.js';

const base = documentModel({ limit: 1 });
const model = (over: { output: 'draft' | 'final'; watermark: boolean; marking?: string; system?: string }): DocumentModel => ({
  ...base,
  document: { ...base.document, output: over.output },
  options: { ...base.options, draft_watermark: over.watermark },
  marking: { ...base.marking, name: over.marking ?? 'PROTECTED' },
  system: { ...base.system, name: over.system ?? 'Payroll' },
});

describe('cellText', () => {
  it('answers an empty string for no value', () => {
    expect([cellText(null), cellText(undefined)]).toEqual(['', '']);
  });

  it('keeps a value that begins like a formula as the text it is', () => {
    expect(cellText('=HYPERLINK("x")')).toBe('=HYPERLINK("x")');
  });

  it('turns CR and CRLF line ends into LF', () => {
    expect(cellText('a\r\nb\rc')).toBe('a\nb\nc');
  });

  it("cuts text beyond Excel's cell limit and says so", () => {
    const cut = cellText('x'.repeat(CELL_LIMIT + 10));
    expect([cut.length, cut.endsWith('[…truncated: the full text is in the controls export]')]).toEqual([CELL_LIMIT, true]);
  });

  it('never cuts a character in half', () => {
    const cut = cellText('😀'.repeat(CELL_LIMIT));
    expect(cut.replace(/ \[…truncated.*$/, '').length % 2).toBe(0);
  });
});

describe('isDraft', () => {
  it('is true for a draft whose generation asked for the watermark', () => {
    expect(isDraft(model({ output: 'draft', watermark: true }))).toBe(true);
  });

  it('is false for a draft without the watermark, and for final output', () => {
    expect([isDraft(model({ output: 'draft', watermark: false })), isDraft(model({ output: 'final', watermark: true }))]).toEqual([false, false]);
  });
});

describe('markedHeaderFooter', () => {
  it('centres the marking in header and footer, with DRAFT on a draft and page numbers', () => {
    expect(markedHeaderFooter(model({ output: 'draft', watermark: true }), 'Statement of Applicability')).toEqual({
      oddHeader: '&LStatement of Applicability&C&"-,Bold"PROTECTED&R&"-,Bold"DRAFT',
      oddFooter: '&LPayroll&C&"-,Bold"PROTECTED&RPage &P of &N',
    });
  });

  it("doubles the model's ampersands so that they print as text", () => {
    expect(markedHeaderFooter(model({ output: 'final', watermark: false, system: 'R&D' }), 'A&B').oddFooter).toBe('&LR&&D&C&"-,Bold"PROTECTED&RPage &P of &N');
  });
});

describe('listOf', () => {
  it('validates a column against its labels and refuses anything else', () => {
    expect(listOf(['Yes', 'No'], 'Applicable')).toEqual({
      type: 'list',
      allowBlank: true,
      formulae: ['"Yes,No"'],
      showErrorMessage: true,
      errorStyle: 'stop',
      errorTitle: 'Applicable',
      error: 'Choose one of: Yes, No.',
    });
  });
});
