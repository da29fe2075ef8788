import ExcelJS from 'exceljs';

/** A cell of a generated matrix: text, or a formula with the result a spreadsheet application cached for it. */
export type MatrixCell = string | { formula: string; result: string };
export type MatrixTable = MatrixCell[][];

const shown = (cell: MatrixCell) => (typeof cell === 'string' ? cell : cell.result);
const quoted = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);

/** CSV text of a table (formulas as their results, since CSV keeps no formulas), CR LF between records as spreadsheet exports write them. */
export function csvText(table: MatrixTable, options: { bom?: boolean } = {}): string {
  return (options.bom ? '\uFEFF' : '') + table.map((row) => row.map((c) => quoted(shown(c))).join(',')).join('\r\n');
}

export const csvBytes = (table: MatrixTable, options: { bom?: boolean } = {}) => new TextEncoder().encode(csvText(table, options));

/** An XLSX workbook of the table on one sheet (after any sheets given before it), formulas kept with their cached results. */
export async function xlsxBytes(table: MatrixTable, before: MatrixTable[] = []): Promise<Uint8Array> {
  const workbook = new ExcelJS.Workbook();
  [...before, table].forEach((rows, i) => {
    const sheet = workbook.addWorksheet(`Sheet ${i + 1}`);
    for (const row of rows) sheet.addRow(row.map((c) => (typeof c === 'string' ? c : { formula: c.formula, result: c.result })));
  });
  return new Uint8Array(await workbook.xlsx.writeBuffer());
}

export const HEADER = ['Control ID', 'Responsibility', 'Implementation Status', 'Implementation Statement', 'Consumer Guidance', "Assessor's Finding"];

/** One data row in the order of HEADER. */
export const matrixRow = (
  id: string,
  responsibility: string,
  status = 'Implemented',
  statement = `The platform team carries out ${id} for every tenant.`,
): MatrixCell[] => [
  id,
  responsibility,
  status,
  statement,
  `Tenants need do nothing further for ${id}.`,
  'Effective: sighted configuration and change records.',
];

/**
 * A matrix as an assessor's report delivers it: a title row and a blank row above the header, an
 * extra column the import ignores, and one row per given control id.
 */
export function titledMatrix(rows: MatrixTable): MatrixTable {
  return [['Example Cloud: IRAP Cloud Controls Matrix (PROTECTED)'], [], [...HEADER, 'Internal reference'], ...rows.map((r, i) => [...r, `REF-${i + 1}`])];
}

/** A matrix of the given controls, all provider-implemented, for volume: the bench and the batching tests. */
export const volumeMatrix = (ids: readonly string[]): MatrixTable => [HEADER, ...ids.map((id) => matrixRow(id.toUpperCase(), 'Provider'))];
