import * as z from 'zod';
import { monotonicUlids } from '../../domain/ids.js';
import {
  invalidReferences,
  logicalKeyOf,
  mergeRowData,
  redactRow,
  type RegisterRow,
  rowBodySchema,
  rowReferences,
  rowView,
  rowViewName,
  unreadableReferences,
  viewOfRedacted,
  type RowInput,
  type SourceAuthority,
  type StoredRegisterRow,
} from '../../domain/register-rows.js';
import type { RegisterDefinition } from '../../domain/registers.js';
import { changesSomething } from '../../domain/patch.js';
import { bodyErrors, singleLine, once } from '../../domain/validation.js';
import { notFound, validationFailed } from '../../errors.js';
import type { Item } from '../../store/read.js';
import { createRowWrites, missingReferences, rowKey, toRow, updateRowWrites, type ReferenceHome, type RowScope } from '../../store/registers.js';
import { etagFor, etagVersion, requireIfMatch } from '../kernel/etag.js';
import type { OperationContext } from '../kernel/operation.js';

/**
 * The one register engine behind system and project rows: the manifest's rules, references,
 * claims, ETags and the create and update writes. The operation modules only say where a
 * definition's rows live and what the caller may read there.
 */
const ETAG_KIND = 'register-row';

/** Monotonic, so that rows created within one millisecond still list oldest first. */
const nextRowId = monotonicUlids();

const RowValues = once(() =>
  z
    .record(singleLine(), z.unknown().meta({ description: 'A string, integer, boolean or null, as the column type in the manifest says.' }))
    .meta({ description: 'Values by column ID, validated against the register manifest.' }),
);

export const CreateRegisterRow = once(() =>
  z
    .strictObject({ data: RowValues() })
    .meta({ id: 'CreateRegisterRow', description: 'Every required column of the manifest; null or omitted leaves an optional column empty.' }),
);
export const UpdateRegisterRow = once(() =>
  z
    .strictObject({ data: RowValues().apply(changesSomething, 'column') })
    .meta({ id: 'UpdateRegisterRow', description: 'JSON merge patch per column: omitted columns are kept; null clears an optional column.' }),
);

/** Where a definition's rows live and what this caller may read of the sources they reference. */
export interface RowPlace {
  definition: RegisterDefinition;
  scope: RowScope;
  authority: SourceAuthority;
  /** Where new references must resolve. */
  home: ReferenceHome;
}

export const rowEtag = (d: RegisterDefinition, row: StoredRegisterRow, authority: SourceAuthority) =>
  etagFor(ETAG_KIND, row.id, row.version, rowViewName(d, authority));

/** The ETag of a representation that hides these columns. */
export const redactedRowEtag = (row: Pick<StoredRegisterRow, 'id' | 'version'>, redacted: readonly string[]) =>
  etagFor(ETAG_KIND, row.id, row.version, viewOfRedacted(redacted));

/** Logical-key uniqueness is a rule of the manifest like types and enums (seed: Register row), so a taken key is a validation failure at its columns. */
const keyTaken = (d: RegisterDefinition) => () =>
  validationFailed(
    d.logical_key.map((column) => ({
      pointer: `/data/${column}`,
      detail: `another row of this register already has this ${d.logical_key.join(' and ')}`,
      code: 'logical_key_taken',
    })),
  );

/** The stored row from the authentication round trip (or a read of its own), 404 when absent. */
export function storedRow(item: Item | undefined) {
  if (!item) throw notFound();
  return toRow(item);
}

export const storedRowKey = (place: Pick<RowPlace, 'definition' | 'scope'>, rowId: string) => rowKey(place.scope, place.definition.id, rowId);

/**
 * The manifest's rules (422 with pointers under /data): types, enums, required columns, unknown
 * columns, references to sources this credential cannot read, and new references that resolve to
 * nothing (seed, Errors part 4).
 */
async function validInput(place: RowPlace, body: { data: Record<string, unknown> }, mode: 'create' | 'update'): Promise<RowInput> {
  const { definition: d } = place;
  const unreadable = unreadableReferences(d, body.data, place.authority);
  const parsed = rowBodySchema(d, mode).safeParse(body);
  const invalid = parsed.success ? [] : bodyErrors(parsed.error).filter((e) => !unreadable.some((u) => u.pointer === e.pointer));
  if (unreadable.length > 0 || invalid.length > 0 || !parsed.success) throw validationFailed([...unreadable, ...invalid]);
  const missing = await missingReferences(place.home, rowReferences(d, parsed.data.data));
  if (missing.length > 0) throw validationFailed(invalidReferences(missing));
  return parsed.data.data;
}

/** A new row of the place: its view, ETag and the writes that create it with its claim and count. */
export async function createRow(
  ctx: OperationContext,
  place: RowPlace,
  body: { data: Record<string, unknown> },
  owners: Pick<StoredRegisterRow, 'organisation_id' | 'system_id' | 'project_id'>,
) {
  const { definition: d, scope, authority } = place;
  const data = mergeRowData({}, await validInput(place, body, 'create'));
  const at = ctx.now.toISOString();
  const row: StoredRegisterRow = {
    id: nextRowId(ctx.now.getTime()),
    definition_id: d.id,
    owner: scope.owner,
    ...owners,
    data,
    created_at: at,
    updated_at: at,
    version: 1,
  };
  return {
    row,
    data: rowView(d, row, authority),
    etag: rowEtag(d, row, authority),
    writes: createRowWrites(scope, { row, logicalKey: logicalKeyOf(d, data) }, keyTaken(d)),
  };
}

/** A merge patch of the current row at the version the If-Match names in this caller's view. */
export async function updateRow(ctx: OperationContext, place: RowPlace, current: ReturnType<typeof toRow>, body: { data: Record<string, unknown> }) {
  const { definition: d, scope, authority } = place;
  // A stale ETag answers 412 before the body costs a reference-resolving read.
  requireIfMatch(ctx.ifMatch, etagFor(ETAG_KIND, current.row.id, current.row.version, rowViewName(d, authority)));
  const input = await validInput(place, body, 'update');
  const data = mergeRowData(current.row.data, input);
  const next: StoredRegisterRow = { ...current.row, data, updated_at: ctx.now.toISOString(), version: current.row.version + 1 };
  return {
    row: next,
    data: rowView(d, next, authority),
    etag: rowEtag(d, next, authority),
    writes: updateRowWrites(scope, current, { row: next, logicalKey: logicalKeyOf(d, data) }, keyTaken(d)),
  };
}

/**
 * Redaction as of now on a replayed create. The ETag names the view the replayed body shows,
 * which keeps what was hidden at creation hidden.
 */
export function redactReplay({ data, etag }: { data: RegisterRow; etag?: string }, authority: SourceAuthority) {
  const redacted = redactRow(data, authority);
  const version = etag ? etagVersion(etag) : undefined;
  return { data: redacted, etag: version === undefined ? etag : redactedRowEtag({ id: data.id, version }, redacted.redacted_fields) };
}
