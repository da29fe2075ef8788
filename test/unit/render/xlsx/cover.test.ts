import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import type { DocumentModel } from '../../../../lib/domain/document-model.js';
import { writeCover } from '../../../../lib/render/xlsx/cover.js';
import { collector, documentModel } from '../../../support/document-model.js';

const base = documentModel({ limit: 3 });

/** The cover sheet's rows as text, as a reader of the written workbook sees them. */
async function coverRows(model: DocumentModel): Promise<[string, string][]> {
  const sink = collector();
  const writer = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: sink.out });
  writeCover(writer, model);
  await writer.commit();
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(sink.bytes() as unknown as ExcelJS.Buffer);
  const rows: [string, string][] = [];
  workbook.getWorksheet('Cover')!.eachRow({ includeEmpty: true }, (row) => {
    rows.push([String(row.getCell(1).value ?? ''), String(row.getCell(2).value ?? '')]);
  });
  return rows;
}

const draft: DocumentModel = { ...base, document: { ...base.document, output: 'draft' }, options: { ...base.options, draft_watermark: true } };
const final: DocumentModel = {
  ...base,
  document: { ...base.document, output: 'final', approved_by: { id: 'U', name: 'Ann Approver' }, approved_at: '2026-03-01T00:00:00.000Z' },
  options: { ...base.options, draft_watermark: false },
};

describe('writeCover', () => {
  it('puts the marking above and below the title', async () => {
    const rows = await coverRows(final);
    expect([rows[0]?.[0], rows[2]?.[0], rows.at(-1)?.[0]]).toEqual([base.marking.name, base.document.title, base.marking.name]);
  });

  it('says a draft is not approved for use', async () => {
    expect((await coverRows(draft))[3]?.[0]).toBe('DRAFT: not approved for use');
  });

  it('counts the controls and the applicable ones', async () => {
    const applicable = base.controls.filter((c) => c.applicability === 'y').length;
    const rows = await coverRows(final);
    expect(rows.find(([label]) => label === 'Controls')?.[1]).toBe(`3 (${applicable} applicable, ${3 - applicable} not applicable)`);
  });

  it('names the approver of final output, and when', async () => {
    const rows = await coverRows(final);
    expect(rows.filter(([label]) => label.startsWith('Approved'))).toEqual([
      ['Approved by', 'Ann Approver'],
      ['Approved at', '2026-03-01T00:00:00.000Z'],
    ]);
  });

  it('names no approver on a draft', async () => {
    expect((await coverRows(draft)).filter(([label]) => label.startsWith('Approved'))).toEqual([]);
  });
});
