import { describe, expect, it } from 'vitest';
import { headerName, matrixRows, type TableRow } from '../../../../lib/domain/imports/ccm-table.js';
import { ImportRejected, LIMITS } from '../../../../lib/domain/imports/rows.js';

const table = (...rows: string[][]): TableRow[] => rows.map((cells, i) => ({ row: i + 1, cells }));
const HEADER = ['Control ID', 'Responsibility', 'Implementation status'];

describe('headerName', () => {
  it('makes one name of spellings that differ in case, apostrophes and separators', () => {
    expect(["Assessor's Finding", 'assessors-finding', 'ASSESSORS_FINDING', ' Assessor’s  finding '].map(headerName)).toEqual(
      Array(4).fill('assessors finding'),
    );
  });
});

describe('matrixRows', () => {
  it('answers nothing for a table without a row naming the identifier and responsibility columns', () => {
    expect(matrixRows(table(['Control ID', 'Notes'], ['ISM-1691', 'x']))).toBeUndefined();
  });

  it('reads the rows below the first header row, keeping their numbers', () => {
    const parsed = matrixRows(table(['Cloud controls matrix'], HEADER, ['ISM-1691', 'Provider', 'Implemented']));
    expect(parsed).toEqual({
      rows: [
        {
          row: 3,
          control_id: 'ism-1691',
          responsibility: 'provider',
          implementation_status: 'implemented',
          implementation_statement: null,
          consumer_guidance: null,
          assessor_finding: null,
          control_text: null,
          ism_version: null,
        },
      ],
      errors: [],
    });
  });

  it('takes the first column of a name when two name the same field', () => {
    const parsed = matrixRows(table(['ID', 'Responsibility', 'Identifier'], ['ISM-1691', 'Provider', 'ISM-0009']));
    expect(parsed?.rows.map((r) => r.control_id)).toEqual(['ism-1691']);
  });

  it('skips blank rows', () => {
    const parsed = matrixRows(table(HEADER, ['', ' ', ''], ['ISM-1691', 'Provider', '']));
    expect([parsed?.rows.map((r) => r.row), parsed?.errors]).toEqual([[3], []]);
  });

  it.each([
    ['no identifier', ['', 'Provider', ''], 'control_id: missing'],
    ['an identifier that is not an ISM control', ['AC-2', 'Provider', ''], 'control_id: "AC-2" is not an ISM control identifier'],
    ['no responsibility', ['ISM-1691', '', ''], 'responsibility: missing'],
    ['a responsibility of no known spelling', ['ISM-1691', 'Vendor', ''], 'responsibility: "Vendor" is not provider, consumer, shared or not applicable'],
    ['a status of no known spelling', ['ISM-1691', 'Provider', 'Sort of'], 'implementation_status: "Sort of" is not a recognised status'],
    ['an identifier over two lines', ['ISM-\n1691', 'Provider', ''], expect.stringMatching(/^control_id: /)],
  ])('reports a row with %s by its number while the others import', (_label, cells, reason) => {
    const parsed = matrixRows(table(HEADER, cells, ['ISM-0009', 'Shared', '']));
    expect([parsed?.rows.map((r) => r.control_id), parsed?.errors]).toEqual([['ism-0009'], [{ row: 2, reason }]]);
  });

  it('reports a cell longer than a cell may be', () => {
    const parsed = matrixRows(table(['Control ID', 'Responsibility', 'Implementation statement'], ['ISM-1691', 'Provider', 'x'.repeat(LIMITS.cell + 1)]));
    expect(parsed?.errors).toEqual([{ row: 2, reason: `implementation_statement: must be at most ${LIMITS.cell} characters` }]);
  });

  it('refuses a matrix of more rows than an import reads', () => {
    const rows = Array.from({ length: LIMITS.rows + 1 }, (_, i) => [String(i + 1), 'Provider', '']);
    expect(() => matrixRows(table(HEADER, ...rows))).toThrow(ImportRejected);
  });
});
