import ExcelJS from 'exceljs';
import { CsvError, parse } from 'csv-parse/sync';
import { Readable } from 'node:stream';
import { matrixRows, type TableRow } from './ccm-table.js';
import { ImportRejected, LIMITS, type ParsedImport } from './rows.js';
import { readablePackage } from './xlsx-archive.js';

/**
 * Reads a provider's Cloud Controls Matrix from its bytes: an XLSX workbook (recognised by its ZIP
 * signature) or else UTF-8 CSV. Pure: bytes in, rows out; nothing is fetched or evaluated.
 */
export async function parseCcm(bytes: Uint8Array): Promise<ParsedImport> {
  const parsed = isZip(bytes) ? await workbookMatrix(bytes) : matrixRows(csvTable(bytes));
  if (parsed) return parsed;
  throw new ImportRejected('no_header_row', 'no row names the columns of a control identifier and a responsibility');
}

const isZip = (bytes: Uint8Array) => bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;

/** Rows beyond the limit, plus room for title and header rows, are refused before they are read into memory. */
const MAX_SOURCE_ROWS = LIMITS.rows + 100;
const tooManyRows = () => new ImportRejected('too_many_rows', `a matrix holds at most ${LIMITS.rows} rows`);

function csvTable(bytes: Uint8Array): TableRow[] {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ImportRejected('not_utf8', 'a CSV matrix must be UTF-8 text');
  }
  try {
    const records: string[][] = parse(text, { bom: true, relax_column_count: true, to: MAX_SOURCE_ROWS + 1 });
    if (records.length > MAX_SOURCE_ROWS) throw tooManyRows();
    // A record's number is its row once the file is opened as a spreadsheet (quoted line breaks stay inside their cell).
    return records.map((cells, i) => ({ row: i + 1, cells }));
  } catch (error) {
    if (error instanceof CsvError) throw new ImportRejected('malformed_csv', `not readable as CSV: ${error.message}`);
    throw error;
  }
}

/**
 * The matrix of the first sheet with a header row, sheets in the order the package stores them.
 * The archive is checked first (sizes declared and real); then exceljs's streaming reader reads
 * one row at a time, and a sheet is abandoned as soon as it passes the row limit, so memory stays
 * bounded whatever the file claims or holds.
 */
async function workbookMatrix(bytes: Uint8Array): Promise<ParsedImport | undefined> {
  const parts = await readablePackage(bytes);
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength))), {
    worksheets: 'emit',
    sharedStrings: 'cache',
    // Styles tell a date from a number.
    styles: 'cache',
    hyperlinks: 'ignore',
    entries: 'ignore',
  });
  let sheets = 0;
  try {
    for await (const sheet of reader) {
      sheets++;
      const parsed = matrixRows(await sheetTable(sheet));
      if (parsed) return parsed;
    }
  } catch (error) {
    if (error instanceof ImportRejected) throw error;
    throw new ImportRejected('malformed_xlsx', 'not readable as an XLSX workbook');
  }
  if (!sheets) throw new ImportRejected('malformed_xlsx', 'not an XLSX workbook: it holds no worksheet');
  return undefined;
}

/** A sheet's rows that hold a value, refused once there are more than a matrix may hold. */
async function sheetTable(sheet: ExcelJS.stream.xlsx.WorksheetReader): Promise<TableRow[]> {
  const rows: TableRow[] = [];
  for await (const row of sheet) {
    const cells: string[] = [];
    row.eachCell({ includeEmpty: false }, (cell, column) => {
      cells[column - 1] = cellText(cell.value);
    });
    if (!cells.length) continue;
    if (rows.length === MAX_SOURCE_ROWS) throw tooManyRows();
    rows.push({ row: row.number, cells: Array.from(cells, (c) => c ?? '') });
  }
  return rows;
}

/** What a cell shows: a formula's cached result (never evaluated), rich text joined, a hyperlink's text, a date as its ISO day. */
function cellText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if ('richText' in value) return value.richText.map((r) => r.text).join('');
  if ('formula' in value || 'sharedFormula' in value) return cellText((value as ExcelJS.CellFormulaValue).result as ExcelJS.CellValue);
  if ('hyperlink' in value) return typeof value.text === 'string' ? value.text : cellText(value.text as ExcelJS.CellValue);
  return '';
}
