import { multiLine, singleLine } from '../validation.js';
import {
  controlIdOf,
  type ImportedRow,
  ImportRejected,
  implementationStatusOf,
  LIMITS,
  type ParsedImport,
  responsibilityOf,
  textOrNull,
  withoutDuplicates,
} from './rows.js';

/** A spreadsheet as text: each row with its 1-based number, each cell as the text it shows. */
export interface TableRow {
  row: number;
  cells: string[];
}

type Field = Exclude<keyof ImportedRow, 'row'>;

/**
 * The header names each field is found by, compared after lower-casing, dropping apostrophes and
 * turning every run of other non-alphanumeric characters into one space ("Assessor's Finding",
 * "assessor finding" and "ASSESSOR_FINDING" are one name). docs/operations/providers.md lists them. A bare "Control"
 * is deliberately neither the identifier nor the text: matrices use it for both.
 */
export const HEADER_NAMES: Record<Field, readonly string[]> = {
  control_id: [
    'control id',
    'control identifier',
    'identifier',
    'id',
    'ism control',
    'ism control id',
    'ism id',
    'ism identifier',
    'control number',
    'control no',
  ],
  responsibility: [
    'responsibility',
    'responsible party',
    'responsible',
    'control responsibility',
    'responsibility model',
    'implementation responsibility',
    'ownership',
  ],
  implementation_status: ['implementation status', 'status', 'control status', 'implemented'],
  implementation_statement: [
    'implementation statement',
    'provider implementation statement',
    'csp implementation statement',
    'implementation description',
    'implementation details',
    'provider statement',
    'implementation',
  ],
  consumer_guidance: [
    'consumer guidance',
    'customer guidance',
    'consumer responsibility',
    'customer responsibility',
    'guidance for consumers',
    'consumer implementation guidance',
    'tenant guidance',
  ],
  assessor_finding: [
    'assessor finding',
    'assessors finding',
    'finding',
    'assessment finding',
    'irap assessor finding',
    'assessor comments',
    'assessment outcome',
  ],
  control_text: ['description', 'control description', 'control text', 'control statement', 'requirement', 'ism control description'],
  ism_version: ['ism version', 'ism release'],
};

const REQUIRED: readonly Field[] = ['control_id', 'responsibility'];

export const headerName = (value: string) =>
  value
    .toLowerCase()
    .replace(/['\u2019]/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();

const BY_NAME = new Map<string, Field>(Object.entries(HEADER_NAMES).flatMap(([field, names]) => names.map((n) => [n, field as Field] as const)));

/** The column of each field a header row names (the first column of a name wins); undefined when it lacks a required one. */
function columnsOf(cells: string[]): Partial<Record<Field, number>> | undefined {
  const columns: Partial<Record<Field, number>> = {};
  cells.forEach((cell, i) => {
    const field = BY_NAME.get(headerName(cell));
    if (field && columns[field] === undefined) columns[field] = i;
  });
  return REQUIRED.every((f) => columns[f] !== undefined) ? columns : undefined;
}

const TOO_LONG = `must be at most ${LIMITS.cell} characters`;
const IDENTIFIER = singleLine().max(LIMITS.cell, TOO_LONG);
const TEXT = multiLine().max(LIMITS.cell, TOO_LONG);

class RowFailed extends Error {
  override readonly name = 'RowFailed';
}

function cellOf(row: TableRow, column: number | undefined, field: Field): string {
  const value = column === undefined ? '' : (row.cells[column] ?? '');
  const checked = (
    field === 'control_id' || field === 'responsibility' || field === 'implementation_status' || field === 'ism_version' ? IDENTIFIER : TEXT
  ).safeParse(value);
  if (!checked.success) throw new RowFailed(`${field}: ${checked.error.issues[0]?.message ?? 'is not readable'}`);
  return value;
}

function rowOf(row: TableRow, columns: Partial<Record<Field, number>>): ImportedRow {
  const text = (field: Field) => textOrNull(cellOf(row, columns[field], field));
  const rawId = text('control_id');
  if (!rawId) throw new RowFailed('control_id: missing');
  const controlId = controlIdOf(rawId);
  if (!controlId) throw new RowFailed(`control_id: "${rawId.slice(0, 40)}" is not an ISM control identifier`);
  const rawResponsibility = text('responsibility');
  if (!rawResponsibility) throw new RowFailed('responsibility: missing');
  const responsibility = responsibilityOf(rawResponsibility);
  if (!responsibility) throw new RowFailed(`responsibility: "${rawResponsibility.slice(0, 40)}" is not provider, consumer, shared or not applicable`);
  const rawStatus = text('implementation_status');
  const status = rawStatus === null ? null : implementationStatusOf(rawStatus);
  if (rawStatus !== null && !status) throw new RowFailed(`implementation_status: "${rawStatus.slice(0, 40)}" is not a recognised status`);
  return {
    row: row.row,
    control_id: controlId,
    responsibility,
    implementation_status: status,
    implementation_statement: text('implementation_statement'),
    consumer_guidance: text('consumer_guidance'),
    assessor_finding: text('assessor_finding'),
    control_text: text('control_text'),
    ism_version: text('ism_version'),
  };
}

/**
 * Rows of a matrix below its header row: the first row naming the required columns (identifier
 * and responsibility), so title rows above the table are fine. Blank rows are skipped; a row that
 * cannot be read is reported with its number while the others still import.
 */
export function matrixRows(table: readonly TableRow[]): ParsedImport | undefined {
  const headerAt = table.findIndex((r) => columnsOf(r.cells) !== undefined);
  if (headerAt < 0) return undefined;
  const columns = columnsOf(table[headerAt]!.cells)!;
  const body = table.slice(headerAt + 1).filter((r) => r.cells.some((c) => c.trim() !== ''));
  if (body.length > LIMITS.rows) throw new ImportRejected('too_many_rows', `a matrix holds at most ${LIMITS.rows} rows; this one has ${body.length}`);
  const parsed: ParsedImport = { rows: [], errors: [] };
  for (const row of body) {
    try {
      parsed.rows.push(rowOf(row, columns));
    } catch (error) {
      if (!(error instanceof RowFailed)) throw error;
      parsed.errors.push({ row: row.row, reason: error.message });
    }
  }
  return withoutDuplicates(parsed);
}
