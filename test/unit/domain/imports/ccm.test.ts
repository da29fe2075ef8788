import { describe, expect, it } from 'vitest';
import { parseCcm } from '../../../../lib/domain/imports/ccm.js';
import { ImportRejected, LIMITS } from '../../../../lib/domain/imports/rows.js';
import { csvBytes, csvText, HEADER, matrixRow, titledMatrix, volumeMatrix, xlsxBytes } from '../../../support/matrices.js';

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: unknown) => (e instanceof ImportRejected ? e.code : e),
  );

describe('parseCcm on CSV', () => {
  it('reads the rows below a title row, numbering them as the spreadsheet does', async () => {
    const parsed = await parseCcm(csvBytes(titledMatrix([matrixRow('ISM-1691', 'Provider'), matrixRow('ISM-0009', 'Shared')])));
    expect(parsed.rows.map((r) => [r.row, r.control_id, r.responsibility])).toEqual([
      [4, 'ism-1691', 'provider'],
      [5, 'ism-0009', 'shared'],
    ]);
  });

  it('reads every field of a row and ignores extra columns', async () => {
    const parsed = await parseCcm(csvBytes(titledMatrix([matrixRow('ISM-1691', 'Provider', 'Partially implemented', 'Patched weekly.')])));
    expect(parsed.rows[0]).toEqual({
      row: 4,
      control_id: 'ism-1691',
      responsibility: 'provider',
      implementation_status: 'partially_implemented',
      implementation_statement: 'Patched weekly.',
      consumer_guidance: 'Tenants need do nothing further for ISM-1691.',
      assessor_finding: 'Effective: sighted configuration and change records.',
      control_text: null,
      ism_version: null,
    });
  });

  it('accepts ISM-1691, ism-0027 and 9 as control identifiers', async () => {
    const parsed = await parseCcm(csvBytes([HEADER, matrixRow('ISM-1691', 'Provider'), matrixRow('ism-0027', 'Provider'), matrixRow('9', 'Provider')]));
    expect(parsed.rows.map((r) => r.control_id)).toEqual(['ism-1691', 'ism-0027', 'ism-0009']);
  });

  it('maps common spellings of responsibility', async () => {
    const spellings = ['CSP', 'Customer', 'Shared responsibility', 'N/A', 'Inherited'];
    const parsed = await parseCcm(csvBytes([HEADER, ...spellings.map((s, i) => matrixRow(String(1000 + i), s))]));
    expect(parsed.rows.map((r) => r.responsibility)).toEqual(['provider', 'consumer', 'shared', 'not_applicable', 'provider']);
  });

  it('finds columns by header names regardless of case, spacing and synonyms', async () => {
    const parsed = await parseCcm(
      csvBytes([
        ['  IDENTIFIER ', 'responsible_party', 'Description'],
        ['ISM-1691', 'Consumer', 'Patches are applied.'],
      ]),
    );
    expect(parsed.rows[0]).toMatchObject({ control_id: 'ism-1691', responsibility: 'consumer', control_text: 'Patches are applied.' });
  });

  it('reads a file that starts with a UTF-8 byte order mark', async () => {
    const parsed = await parseCcm(csvBytes([HEADER, matrixRow('ISM-1691', 'Provider')], { bom: true }));
    expect(parsed.rows).toHaveLength(1);
  });

  it('keeps commas, quotes and line breaks inside quoted fields', async () => {
    const statement = 'Patched weekly, "urgently" within 48 hours,\r\nand audited monthly.';
    const parsed = await parseCcm(csvBytes([HEADER, matrixRow('ISM-1691', 'Provider', 'Implemented', statement), matrixRow('ISM-0009', 'Provider')]));
    expect(parsed.rows.map((r) => [r.row, r.implementation_statement?.slice(0, 20)])).toEqual([
      [2, statement.slice(0, 20)],
      [3, 'The platform team ca'],
    ]);
  });

  it('reports a row with an unreadable identifier by its row number while the others import', async () => {
    const parsed = await parseCcm(
      csvBytes(titledMatrix([matrixRow('ISM-1691', 'Provider'), matrixRow('Section 4', 'Provider'), matrixRow('ISM-0009', 'Provider')])),
    );
    expect([parsed.rows.length, parsed.errors]).toEqual([2, [{ row: 5, reason: 'control_id: "Section 4" is not an ISM control identifier' }]]);
  });

  it('reports a row without a responsibility', async () => {
    const parsed = await parseCcm(csvBytes([HEADER, matrixRow('ISM-1691', ' ')]));
    expect(parsed.errors).toEqual([{ row: 2, reason: 'responsibility: missing' }]);
  });

  it('reports a responsibility it cannot map', async () => {
    const parsed = await parseCcm(csvBytes([HEADER, matrixRow('ISM-1691', 'Whoever')]));
    expect(parsed.errors[0]?.reason).toMatch(/^responsibility: "Whoever"/);
  });

  it('reports an implementation status it cannot map', async () => {
    const parsed = await parseCcm(csvBytes([HEADER, matrixRow('ISM-1691', 'Provider', 'Sort of')]));
    expect(parsed.errors[0]?.reason).toMatch(/^implementation_status: "Sort of"/);
  });

  it('reports a second row of the same control as a duplicate and imports the first', async () => {
    const parsed = await parseCcm(csvBytes([HEADER, matrixRow('ISM-1691', 'Provider'), matrixRow('1691', 'Consumer')]));
    expect([parsed.rows.map((r) => r.responsibility), parsed.errors]).toEqual([['provider'], [{ row: 3, reason: 'duplicate of row 2 for ism-1691' }]]);
  });

  it('reports a cell longer than the limit', async () => {
    const parsed = await parseCcm(csvBytes([HEADER, matrixRow('ISM-1691', 'Provider', 'Implemented', 'x'.repeat(LIMITS.cell + 1))]));
    expect(parsed.errors[0]?.reason).toBe(`implementation_statement: must be at most ${LIMITS.cell} characters`);
  });

  it('reports a cell holding a control character', async () => {
    const parsed = await parseCcm(csvBytes([HEADER, matrixRow('ISM-1691', 'Provider', 'Implemented', 'Patched\u0007weekly')]));
    expect(parsed.errors[0]?.reason).toMatch(/^implementation_statement: must not contain U\+0007/);
  });

  it('skips blank rows without reporting them', async () => {
    const parsed = await parseCcm(csvBytes([HEADER, [], ['', ' ', ''], matrixRow('ISM-1691', 'Provider')]));
    expect([parsed.rows.map((r) => r.row), parsed.errors]).toEqual([[4], []]);
  });

  it('refuses a file without a header row', async () => {
    expect(
      await rejection(
        parseCcm(
          csvBytes([
            ['Control ID', 'Statement'],
            ['ISM-1691', 'Patched'],
          ]),
        ),
      ),
    ).toBe('no_header_row');
  });

  it('refuses bytes that are not UTF-8', async () => {
    expect(await rejection(parseCcm(new Uint8Array([0x43, 0x6f, 0xff, 0xfe])))).toBe('not_utf8');
  });

  it('refuses CSV with an unterminated quote', async () => {
    expect(await rejection(parseCcm(new TextEncoder().encode(`${csvText([HEADER])}\r\nISM-1691,"Provider`)))).toBe('malformed_csv');
  });

  it('refuses a matrix of more rows than the limit', async () => {
    const ids = Array.from({ length: LIMITS.rows + 1 }, (_, i) => String(i + 1));
    expect(await rejection(parseCcm(csvBytes(volumeMatrix(ids))))).toBe('too_many_rows');
  });
});

describe('parseCcm on XLSX', () => {
  it('reads the rows below a title row', async () => {
    const parsed = await parseCcm(await xlsxBytes(titledMatrix([matrixRow('ISM-1691', 'Provider'), matrixRow('ISM-0009', 'Customer')])));
    expect(parsed.rows.map((r) => [r.row, r.control_id, r.responsibility])).toEqual([
      [4, 'ism-1691', 'provider'],
      [5, 'ism-0009', 'consumer'],
    ]);
  });

  it("takes a formula cell's cached result without evaluating it", async () => {
    const row = matrixRow('ISM-1691', 'Provider');
    row[1] = { formula: 'IF(TRUE,"Consumer","Provider")', result: 'Shared' };
    const parsed = await parseCcm(await xlsxBytes([HEADER, row]));
    expect(parsed.rows[0]?.responsibility).toBe('shared');
  });

  it('finds the matrix on a later sheet when the first has no header row', async () => {
    const parsed = await parseCcm(await xlsxBytes([HEADER, matrixRow('ISM-1691', 'Provider')], [[['Cover page'], ['Prepared for Example Cloud']]]));
    expect(parsed.rows.map((r) => r.control_id)).toEqual(['ism-1691']);
  });

  it('reports malformed rows and duplicates by their row numbers', async () => {
    const parsed = await parseCcm(await xlsxBytes([HEADER, matrixRow('ISM-1691', 'Provider'), matrixRow('TBD', 'Provider'), matrixRow('ism-1691', 'Shared')]));
    expect(parsed.errors.map((e) => e.row)).toEqual([3, 4]);
  });

  it('refuses a ZIP that is not a workbook', async () => {
    expect(await rejection(parseCcm(new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3])))).toBe('malformed_xlsx');
  });
});
