import * as z from 'zod';
import { multiLine, NOT_BLANK, singleLine, once } from './validation.js';
import { changesSomething } from './patch.js';
import { isValid as isUlid } from 'ulid';
import { definitionById, REGISTER_OWNERS, type ColumnType, type RegisterColumn, type RegisterDefinition } from './registers.js';

/** Register rows: a data object keyed by column ID, validated against the definition's manifest. */
export type RowValue = string | number | boolean;
/** Stored data: a column without a value is absent, never null. */
export type RowData = Record<string, RowValue>;
/** A create or merge-patch body's data: null clears a column (RFC 7396), an omitted one is kept. */
export type RowInput = Partial<Record<string, RowValue | null>>;

/** ISM controls are named by ULID within a project, or by their reference code such as ISM-1234. */
export const CONTROL_REFERENCE = /^(?:[0-9A-HJKMNP-TV-Z]{26}|ISM-\d{4})$/;
/** Document template keys, such as ssp or security-assessment-report. */
export const DOCUMENT_KEY = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

const TYPE_MESSAGE: Record<ColumnType, string> = {
  string: 'must be a string',
  text: 'must be a string',
  date: 'must be a date (YYYY-MM-DD)',
  integer: 'must be an integer',
  boolean: 'must be true or false',
  enum: 'must be one of the values of its enum',
  contact_ref: 'must be the ULID of a contact',
  control_ref: 'must be a control ULID or an ISM reference code such as ISM-1234',
  document_ref: 'must be a document template key',
};

type Presence = 'required' | 'optional' | 'keep-required';
const MISSING: Record<Presence, string> = { required: 'is required', optional: 'is required', 'keep-required': 'is required and cannot be cleared' };

function valueSchema(d: RegisterDefinition, c: RegisterColumn, presence: Presence): z.ZodType<RowValue> {
  const error = (issue: { input?: unknown }) => (issue.input === undefined || issue.input === null ? MISSING[presence] : TYPE_MESSAGE[c.type]);
  switch (c.type) {
    case 'string':
      return singleLine({ error })
        .max(c.max_length ?? 200, `must be at most ${c.max_length ?? 200} characters`)
        .regex(NOT_BLANK, 'must not be blank')
        .trim();
    case 'text':
      return multiLine({ error })
        .max(c.max_length ?? 5000, `must be at most ${c.max_length ?? 5000} characters`)
        .regex(NOT_BLANK, 'must not be blank');
    case 'date':
      return z.iso.date({ error });
    case 'integer':
      return z.int({ error });
    case 'boolean':
      return z.boolean({ error });
    case 'enum': {
      const values = d.enums[c.enum_id ?? ''] ?? [];
      return z.enum(values as [string, ...string[]], {
        error: (issue) => (issue.input === undefined || issue.input === null ? MISSING[presence] : `must be one of: ${values.join(', ')}`),
      });
    }
    case 'contact_ref':
      return singleLine({ error }).refine((v) => isUlid(v), TYPE_MESSAGE.contact_ref);
    case 'control_ref':
      return singleLine({ error }).regex(CONTROL_REFERENCE, TYPE_MESSAGE.control_ref);
    case 'document_ref':
      return singleLine({ error }).max(64, TYPE_MESSAGE.document_ref).regex(DOCUMENT_KEY, TYPE_MESSAGE.document_ref);
  }
}

/**
 * The body of a row create or merge patch, from the manifest: strict (unknown columns are
 * refused), typed per column, enums closed. A create needs every required column; a patch may
 * omit any column, clears an optional one with null, and may not clear a required one.
 */
export function rowBodySchema(d: RegisterDefinition, mode: 'create' | 'update'): z.ZodType<{ data: RowInput }> {
  const shape: Record<string, z.ZodType<RowValue | null | undefined>> = Object.fromEntries(
    d.columns.map((c) => {
      if (mode === 'create') return [c.id, c.required ? valueSchema(d, c, 'required') : valueSchema(d, c, 'optional').nullable().optional()];
      return [c.id, c.required ? valueSchema(d, c, 'keep-required').optional() : valueSchema(d, c, 'optional').nullable().optional()];
    }),
  );
  const data = z.strictObject(shape);
  const checked = mode === 'update' ? data.apply(changesSomething, 'column') : data;
  return z.strictObject({ data: checked });
}

/** What a caller may read of the sources that reference columns point at (seed, boundary rule 2). */
export interface SourceAuthority {
  contacts: boolean;
  controls: boolean;
  documents: boolean;
}

const SOURCE_OF: Partial<Record<ColumnType, keyof SourceAuthority>> = { contact_ref: 'contacts', control_ref: 'controls', document_ref: 'documents' };

/** Columns whose source this caller cannot read: omitted from data and named in redacted_fields. */
export function redactedColumns(d: RegisterDefinition, authority: SourceAuthority): string[] {
  return d.columns
    .filter((c) => {
      const source = c.counts ?? SOURCE_OF[c.type];
      return source !== undefined && !authority[source];
    })
    .map((c) => c.id);
}

export interface FieldIssue {
  pointer: string;
  detail: string;
  code: string;
}

/**
 * Writing a reference column needs read authority over its source (seed: new unreadable references
 * are rejected); clearing one is a write too, since the caller cannot see what it removes.
 */
export function unreadableReferences(d: RegisterDefinition, input: Record<string, unknown>, authority: SourceAuthority): FieldIssue[] {
  const hidden = new Set(redactedColumns(d, authority));
  return Object.keys(input)
    .filter((column) => hidden.has(column))
    .map((column) => ({
      pointer: `/data/${column}`,
      detail: 'references a source this credential cannot read, so it cannot be set here',
      code: 'unreadable_reference',
    }));
}

export interface RowReference {
  column: string;
  source: keyof SourceAuthority;
  value: string;
}

/** The references a create or patch sets (contact IDs, control IDs or codes, document keys), by column. */
export function rowReferences(d: RegisterDefinition, input: RowInput): RowReference[] {
  return d.columns.flatMap((c) => {
    const value = input[c.id];
    const source = SOURCE_OF[c.type];
    return source && typeof value === 'string' ? [{ column: c.id, source, value }] : [];
  });
}

const MISSING_SOURCE: Record<keyof SourceAuthority, string> = {
  contacts: 'is not an active contact of this system',
  controls: 'is not a control of this project',
  documents: 'is not a document of the catalogue',
};

/** 422 issues for the references that name nothing (seed, Errors part 4: a new reference must resolve). */
export const invalidReferences = (missing: readonly RowReference[]): FieldIssue[] =>
  missing.map((r) => ({ pointer: `/data/${r.column}`, detail: MISSING_SOURCE[r.source], code: 'invalid_reference' }));

/** Merge patch per column (RFC 7396): omitted keeps, null clears. */
export function mergeRowData(current: RowData, input: RowInput): RowData {
  const next: RowData = { ...current };
  for (const [column, value] of Object.entries(input)) {
    if (value === null) delete next[column];
    else if (value !== undefined) next[column] = value;
  }
  return next;
}

/**
 * The canonical logical-key value: case, surrounding and repeated white space, and Unicode
 * compatibility forms do not make two keys different.
 */
export function logicalKeyOf(d: RegisterDefinition, data: RowData): string {
  const normalise = (v: RowValue | undefined) => (v === undefined ? null : String(v).normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase());
  return JSON.stringify(d.logical_key.map((column) => normalise(data[column])));
}

export const RowValueView = once(() => z.union([z.string(), z.number(), z.boolean(), z.null()]));

export const RegisterRow = once(() =>
  z
    .object({
      id: z.string(),
      definition_id: z.string(),
      owner: z.enum(REGISTER_OWNERS),
      data: z.record(z.string(), RowValueView()).meta({ description: 'Values by column ID; null where a column has no value. Redacted columns are omitted.' }),
      redacted_fields: z.array(z.string()).meta({ description: 'Column IDs omitted from data because this credential cannot read their source.' }),
      created_at: z.string(),
      updated_at: z.string(),
    })
    .meta({ id: 'RegisterRow' }),
);
export type RegisterRow = z.infer<ReturnType<typeof RegisterRow>>;

export interface StoredRegisterRow {
  id: string;
  definition_id: string;
  owner: 'project' | 'system' | 'organisation';
  organisation_id: string;
  /** The owning system, also of a project's rows; null for organisation-owned rows. */
  system_id: string | null;
  /** The owning project, on project-owned rows only. */
  project_id?: string;
  data: RowData;
  created_at: string;
  updated_at: string;
  version: number;
}

export function rowView(d: RegisterDefinition, row: StoredRegisterRow, authority: SourceAuthority): RegisterRow {
  const redacted = redactedColumns(d, authority);
  const data = Object.fromEntries(d.columns.filter((c) => !redacted.includes(c.id)).map((c) => [c.id, row.data[c.id] ?? null]));
  return {
    id: row.id,
    definition_id: row.definition_id,
    owner: row.owner,
    data,
    redacted_fields: redacted,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The view part of a row's ETag: representations with different redaction never share one. */
export const rowViewName = (d: RegisterDefinition, authority: SourceAuthority) => viewOfRedacted(redactedColumns(d, authority));

/** The same, from the columns a representation actually hides (a replayed body may hide more). */
export const viewOfRedacted = (redacted: readonly string[]) => `redacted:${redacted.join(',')}`;

/** Redaction as of now, on a stored response (receipt replay): removes what the caller can no longer read. */
export function redactRow(row: RegisterRow, authority: SourceAuthority): RegisterRow {
  const d = definitionById(row.definition_id);
  if (!d) return row;
  const hidden = redactedColumns(d, authority);
  const data = Object.fromEntries(Object.entries(row.data).filter(([column]) => !hidden.includes(column)));
  const redacted = d.columns.map((c) => c.id).filter((id) => hidden.includes(id) || row.redacted_fields.includes(id));
  return { ...row, data, redacted_fields: redacted };
}
