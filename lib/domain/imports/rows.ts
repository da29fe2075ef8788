/**
 * The one shape every import produces, whatever it read (a Cloud Controls Matrix, an OSCAL
 * component definition, this service's JSON assertion format): one row per ISM control the
 * provider asserts something about, and the rows it could not read, each with its source row.
 */
export const RESPONSIBILITIES = ['provider', 'consumer', 'shared', 'not_applicable'] as const;
export type Responsibility = (typeof RESPONSIBILITIES)[number];

export const IMPLEMENTATION_STATUSES = ['implemented', 'partially_implemented', 'planned', 'not_implemented', 'alternate_control', 'not_applicable'] as const;
export type ImplementationStatus = (typeof IMPLEMENTATION_STATUSES)[number];

export interface ImportedRow {
  /** 1-based: the spreadsheet's row number, or the position in the document's list of assertions. */
  row: number;
  /** The ISM catalogue's identifier, lower case (ism-1691). */
  control_id: string;
  responsibility: Responsibility;
  implementation_status: ImplementationStatus | null;
  implementation_statement: string | null;
  consumer_guidance: string | null;
  assessor_finding: string | null;
  /** The control's own text as the source quotes it, which exactness compares with the release. */
  control_text: string | null;
  /** The ISM release the source says the row was written against (a version label), when it says. */
  ism_version: string | null;
}

export interface RowError {
  row: number;
  reason: string;
}

export interface ParsedImport {
  rows: ImportedRow[];
  errors: RowError[];
}

export const LIMITS = {
  /** Rows of assertions one import reads (a CCM holds one per ISM control: about 1,100 today). */
  rows: 5_000,
  /** Characters of one cell or text field. */
  cell: 20_000,
} as const;

/** A whole source that cannot be read at all (not a spreadsheet, no header row, too many rows). */
export class ImportRejected extends Error {
  override readonly name = 'ImportRejected';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** ISM-1691, ism-1691, 1691 and "ISM 1691" all name ism-1691; anything else is not an ISM control id. */
export function controlIdOf(value: string): string | null {
  const found = /^(?:ism[\s_-]?)?0*(\d{1,5})$/i.exec(value.trim());
  return found ? `ism-${found[1]!.padStart(4, '0')}` : null;
}

const words = (value: string) =>
  value
    .trim()
    .toLowerCase()
    .replace(/[^a-z]+/g, ' ')
    .trim();

const RESPONSIBILITY_SPELLINGS: Record<string, Responsibility> = {
  provider: 'provider',
  'cloud service provider': 'provider',
  csp: 'provider',
  'provider responsible': 'provider',
  inherited: 'provider',
  'fully inherited': 'provider',
  consumer: 'consumer',
  customer: 'consumer',
  'cloud service consumer': 'consumer',
  csc: 'consumer',
  tenant: 'consumer',
  'consumer responsible': 'consumer',
  'customer responsible': 'consumer',
  shared: 'shared',
  'shared responsibility': 'shared',
  both: 'shared',
  'partially inherited': 'shared',
  'not applicable': 'not_applicable',
  'n a': 'not_applicable',
  na: 'not_applicable',
  none: 'not_applicable',
};

export const responsibilityOf = (value: string): Responsibility | null => RESPONSIBILITY_SPELLINGS[words(value)] ?? null;

const STATUS_SPELLINGS: Record<string, ImplementationStatus> = {
  implemented: 'implemented',
  'fully implemented': 'implemented',
  yes: 'implemented',
  'partially implemented': 'partially_implemented',
  partial: 'partially_implemented',
  partially: 'partially_implemented',
  planned: 'planned',
  'not implemented': 'not_implemented',
  'not yet implemented': 'not_implemented',
  no: 'not_implemented',
  'alternate control': 'alternate_control',
  'alternative control': 'alternate_control',
  alternative: 'alternate_control',
  'compensating control': 'alternate_control',
  'not applicable': 'not_applicable',
  'n a': 'not_applicable',
  na: 'not_applicable',
};

export const implementationStatusOf = (value: string): ImplementationStatus | null => STATUS_SPELLINGS[words(value)] ?? null;

/** Text a source left empty is absent; whitespace around it is noise. */
export const textOrNull = (value: string | undefined): string | null => {
  const trimmed = value?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
};

/** Rows after the first of each control are reported, not imported: one matrix speaks once per control. */
export function withoutDuplicates(parsed: ParsedImport): ParsedImport {
  const first = new Map<string, number>();
  const rows: ImportedRow[] = [];
  const errors = [...parsed.errors];
  for (const row of parsed.rows) {
    const seen = first.get(row.control_id);
    if (seen === undefined) {
      first.set(row.control_id, row.row);
      rows.push(row);
    } else errors.push({ row: row.row, reason: `duplicate of row ${seen} for ${row.control_id}` });
  }
  errors.sort((a, b) => a.row - b.row);
  return { rows, errors };
}
