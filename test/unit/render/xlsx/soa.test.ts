import { Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import type { DocumentModel } from '../../../../lib/domain/document-model.js';
import { OUTCOME_LABELS, topicOf } from '../../../../lib/render/labels.js';
import { soaRenderer } from '../../../../lib/render/xlsx/soa.js';
import { collector, documentModel } from '../../../support/document-model.js';

const model = documentModel({ key: 'soa', classification: 'TS' });

async function render(m: DocumentModel): Promise<{ workbook: ExcelJS.Workbook; ms: number }> {
  const sink = collector();
  const started = performance.now();
  await soaRenderer.render(m, sink.out);
  const ms = performance.now() - started;
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(sink.bytes() as unknown as ExcelJS.Buffer);
  return { workbook, ms };
}

const { workbook, ms } = await render(model);
const sheet = workbook.getWorksheet('Statement of Applicability')!;
const HEADERS = [
  'Identifier',
  'Type',
  'Title',
  'Statement',
  'Guideline',
  'Section',
  'Revision',
  'Last updated',
  'Applicable',
  'Applicability origin',
  'Applicability comment',
  'Implementation status',
  'Implementation summary',
  'Implementation description',
  'Workflow state',
  'Assessed outcome',
  'Severity',
  'Evidence items',
  'Essential Eight',
];
/** The column number of a header. */
const col = (header: string): number => HEADERS.indexOf(header) + 1;
/** The cells of a column for every control, in catalogue order. */
const cells = (header: string) => model.controls.map((_, i) => sheet.getCell(i + 3, col(header)));
const cover = workbook.getWorksheet('Cover')!;
const coverText = (book: ExcelJS.Workbook): string[] => {
  const values: string[] = [];
  book.getWorksheet('Cover')!.eachRow((row) => row.eachCell((cell) => values.push(String(cell.value))));
  return values;
};

describe('Statement of Applicability', () => {
  it('renders the 1,066 controls of a TOP SECRET project within the 5 s target', () => {
    expect(model.controls).toHaveLength(1066);
    expect(ms).toBeLessThan(5000);
  });

  it('rejects when the sink closes before the end', async () => {
    const closing = new Writable({
      write(_chunk, _encoding, done) {
        this.destroy();
        done();
      },
    });
    await expect(soaRenderer.render(model, closing)).rejects.toThrow();
  });

  it('opens with a cover sheet before the controls sheet', () => {
    expect(workbook.worksheets.map((w) => w.name)).toEqual(['Cover', 'Statement of Applicability']);
  });

  it('lists every control in catalogue order below the header row', () => {
    const labels: string[] = [];
    sheet.eachRow((row, number) => {
      if (number > 2) labels.push(String(row.getCell(1).value));
    });
    expect(labels).toEqual(model.controls.map((c) => c.label));
  });

  it('freezes the header row and the identifier column', () => {
    expect(sheet.views[0]).toMatchObject({ state: 'frozen', xSplit: 1, ySplit: 2 });
  });

  it('filters from the header row over every control', () => {
    expect(sheet.autoFilter).toBe('A2:S1068');
  });

  it('validates only the columns a person edits: whether the control applies and its implementation status', () => {
    const validated = HEADERS.filter(
      (_, i) => sheet.getCell(3, i + 1).dataValidation?.type === 'list' && sheet.getCell(1068, i + 1).dataValidation?.type === 'list',
    );
    expect(validated).toEqual(['Applicable', 'Implementation status']);
    expect(sheet.getCell(3, col('Applicable')).dataValidation.formulae).toEqual(['"Yes,No"']);
    expect(sheet.getCell(3, col('Implementation status')).dataValidation.formulae).toEqual([
      '"Not implemented,Planned,Partially implemented,Implemented,Alternate control"',
    ]);
  });

  it('has the columns of a Statement of Applicability, in order', () => {
    expect((sheet.getRow(2).values as unknown[]).slice(1)).toEqual(HEADERS);
  });

  it('titles each control by its catalogue topic, never by a repeat of its id', () => {
    const titles = cells('Title').map((c) => c.value);
    expect(titles).toEqual(model.controls.map((c) => topicOf(c)));
    expect(model.controls.filter((c, i) => titles[i] === c.label || titles[i] === c.title)).toEqual([]);
  });

  it("shows each control's catalogue revision as a number and its last update as an ISO month", () => {
    const index = model.controls.findIndex((c) => c.revision !== null && c.updated === 'Dec-25');
    expect(sheet.getCell(index + 3, col('Revision')).value).toBe(model.controls[index]!.revision);
    expect(sheet.getCell(index + 3, col('Last updated')).value).toBe('2025-12');
    const months = cells('Last updated').flatMap((c) => (c.value === null ? [] : [String(c.value)]));
    expect(months.length).toBeGreaterThan(900);
    expect(months.filter((m) => !/^\d{4}-(0[1-9]|1[0-2])$/.test(m))).toEqual([]);
  });

  it('shows the implementation description, the assessed outcome and severity, and the evidence count', () => {
    const index = model.controls.findIndex((c) => c.assessment.severity === 'high' && c.implementation_description !== null);
    const control = model.controls[index]!;
    const row = sheet.getRow(index + 3);
    expect(row.getCell(col('Implementation description')).value).toBe(control.implementation_description);
    expect(row.getCell(col('Assessed outcome')).value).toBe(OUTCOME_LABELS[control.assessment.outcome as keyof typeof OUTCOME_LABELS]);
    expect(row.getCell(col('Severity')).value).toBe('High');
    expect(cells('Evidence items').map((c) => [c.type, c.value])).toEqual(model.controls.map((c) => [ExcelJS.ValueType.Number, c.evidence.length]));
  });

  it('leaves a cell without a value empty, not an empty string, so that the (Blanks) filter finds it', () => {
    const index = model.controls.findIndex((c) => c.implementation_status === null && c.assessment.outcome === null);
    const row = sheet.getRow(index + 3);
    for (const header of ['Implementation status', 'Implementation summary', 'Implementation description', 'Assessed outcome', 'Severity']) {
      expect(row.getCell(col(header)).type, header).toBe(ExcelJS.ValueType.Null);
    }
    const empty: string[] = [];
    sheet.eachRow((r) => r.eachCell((c) => (c.value === '' ? empty.push(c.address) : undefined)));
    expect(empty).toEqual([]);
  });

  it('repeats the header row on every printed page', () => {
    expect(sheet.pageSetup.printTitlesRow).toBe('2:2');
  });

  it('writes its dates in one ISO 8601 form on both sheets', () => {
    const values: string[] = [];
    for (const book of [cover, sheet]) book.eachRow((r) => r.eachCell((c) => values.push(String(c.value))));
    const dates = values.flatMap((v) => v.match(/\b\d{4}-\d{2}(-\d{2})?(T[\d:.]+Z)?\b/g) ?? []);
    expect(dates.length).toBeGreaterThan(900);
    expect(values.filter((v) => /\b\d{1,2}\/\d{1,2}\/\d{2,4}\b|\b[A-Z][a-z]{2}-\d{2}\b/.test(v))).toEqual([]);
  });

  it('gives columns widths and wraps their text', () => {
    expect(sheet.getColumn(4).width).toBe(60);
    expect(sheet.getCell('D3').alignment).toMatchObject({ wrapText: true });
  });

  it('shows a control with its applicability, origin, comment, status, state, outcome and levels', () => {
    const index = model.controls.findIndex((c) => c.applicability === 'n' && c.applicability_origin === 'explicit_user_choice');
    const row = sheet.getRow(index + 3);
    expect(row.values).toEqual(expect.arrayContaining(['No', 'Explicit user choice', model.controls[index]!.applicability_comment, 'Editing']));
    const levels = model.controls.findIndex((c) => c.essential_eight.length > 1);
    expect(sheet.getRow(levels + 3).getCell(col('Essential Eight')).value).toBe(model.controls[levels]!.essential_eight.join(', '));
  });

  it('keeps text that looks like a formula as text', async () => {
    const risky = ['=HYPERLINK("http://example.com","x")', '+1+1', '-2+3', '@SUM(A1)', '\t=1', '\r=1'];
    const controls = risky.map((text, i) => ({ ...model.controls[i]!, applicability_comment: text }));
    const { workbook: book } = await render({ ...model, controls });
    const comments = risky.map((_, i) => book.getWorksheet('Statement of Applicability')!.getCell(i + 3, col('Applicability comment')));
    expect(comments.map((c) => [c.type, c.value, c.numFmt])).toEqual(risky.map((text) => [ExcelJS.ValueType.String, text.replace('\r', '\n'), '@']));
  });

  it('cuts text beyond the cell limit of Excel, and says so', async () => {
    const marker = ' […truncated: the full text is in the controls export]';
    // The emoji straddles the cut, so that half of it would be left without the guard.
    const long = `${'x'.repeat(32_767 - marker.length - 1)}🔒${'y'.repeat(10_000)}`;
    const { workbook: book } = await render({ ...model, controls: [{ ...model.controls[0]!, implementation_summary: long }] });
    const value = String(book.getWorksheet('Statement of Applicability')!.getCell(3, col('Implementation summary')).value);
    expect(value.length).toBeLessThanOrEqual(32_767);
    expect(value).toBe(`${'x'.repeat(32_767 - marker.length - 1)}${marker}`);
  });

  it('puts the protective marking in the header and the footer', () => {
    expect(sheet.headerFooter.oddHeader).toContain('TOP SECRET');
    expect(sheet.headerFooter.oddFooter).toContain('TOP SECRET');
    expect(cover.headerFooter.oddHeader).toContain('TOP SECRET');
  });

  it('shows the marking and DRAFT above the controls of a draft', () => {
    expect(String(sheet.getCell('A1').value)).toMatch(/^TOP SECRET .*DRAFT$/);
    expect(sheet.headerFooter.oddHeader).toContain('DRAFT');
    expect(coverText(workbook)).toContain('DRAFT: not approved for use');
  });

  it('names the organisation, system, project, release and generation on the cover', () => {
    expect(coverText(workbook)).toEqual(
      expect.arrayContaining([
        'Department of Examples',
        'Case Management System (CMS)',
        '2026 IRAP assessment',
        'Generated by',
        'Alex Assessor',
        '2026-11-25T01:02:03.000Z',
      ]),
    );
    expect(coverText(workbook).some((v) => v.includes('2025.12.9'))).toBe(true);
  });

  it('shows the approval and no DRAFT on final output', async () => {
    const { workbook: book } = await render(documentModel({ key: 'soa', classification: 'P', output: 'final', limit: 20 }));
    const text = coverText(book);
    expect(text).toEqual(expect.arrayContaining(['Approved by', 'Alex Assessor', 'Approved at', 'Final']));
    expect(text.join(' ')).not.toContain('DRAFT');
    expect(book.getWorksheet('Statement of Applicability')!.headerFooter.oddHeader).not.toContain('DRAFT');
  });
});
