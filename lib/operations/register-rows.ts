import * as z from 'zod';
import { monotonicFactory } from 'ulid';
import {
  contactReferences,
  logicalKeyOf,
  mergeRowData,
  redactRow,
  RegisterRow,
  rowBodySchema,
  rowView,
  rowViewName,
  viewOfRedacted,
  unreadableReferences,
  type RowInput,
  type SourceAuthority,
  type StoredRegisterRow,
} from '../domain/register-rows.js';
import type { RegisterDefinition } from '../domain/registers.js';
import { etagFor, etagVersion, requireVersion } from './etag.js';
import { conflict, notFound, validationFailed } from '../errors.js';
import { bodyErrors, singleLine } from '../domain/validation.js';
import { keys } from '../store/keys.js';
import { activeContactIds, countersKey, createRowWrites, rowCount, rowKey, rowsPage, toRow, updateRowWrites, type RowScope } from '../store/registers.js';
import { NoQuery, PageQuery, Ulid } from './common.js';
import { operation, type OperationContext } from './operation.js';
import { reachableDefinition, RegisterParams, REGISTERS_PATH, scopeOf, systemLevelAuthority, systemRegisterOf } from './register-definitions.js';

const ETAG_KIND = 'register-row';
const BASE = `${REGISTERS_PATH}/{definition}/rows`;
const RowParams = RegisterParams.extend({ row: Ulid });
type RowParams = z.output<typeof RowParams>;

/** Monotonic, so that rows created within one millisecond still list oldest first. */
const nextRowId = monotonicFactory();

const RowValues = z
  .record(singleLine(), z.unknown().meta({ description: 'A string, integer, boolean or null, as the column type in the manifest says.' }))
  .meta({ description: 'Values by column ID, validated against the register manifest.' });

const CreateRegisterRow = z
  .strictObject({ data: RowValues })
  .meta({ id: 'CreateRegisterRow', description: 'Every required column of the manifest; null or omitted leaves an optional column empty.' });
const UpdateRegisterRow = z
  .strictObject({ data: RowValues })
  .meta({ id: 'UpdateRegisterRow', description: 'JSON merge patch per column: omitted columns are kept; null clears an optional column.' });

const etagOf = (d: RegisterDefinition, row: StoredRegisterRow, authority: SourceAuthority) =>
  etagFor(ETAG_KIND, row.id, row.version, rowViewName(d, authority));

const keyTaken = (d: RegisterDefinition) => () =>
  conflict('logical_key_taken', `Another row of this register already has this ${d.logical_key.join(' and ')}.`, { logical_key: [...d.logical_key] });

/** The stored row, read in the authentication round trip, when the definition is one this system exposes. */
const rowPrefetch = (p: RowParams) => {
  const d = reachableDefinition(p.definition);
  return [keys.system(p.organisation, p.system), ...(d ? [rowKey(scopeOf(d, p), d.id, p.row)] : [])];
};

function rowOf(ctx: OperationContext, scope: RowScope, p: RowParams) {
  const item = ctx.prefetched(rowKey(scope, p.definition, p.row));
  if (!item) throw notFound();
  return toRow(item);
}

/**
 * The manifest's rules (422 with pointers under /data): types, enums, required columns, unknown
 * columns, references to sources this credential cannot read, and contact references that are not
 * active contacts of this system (seed, Errors part 4).
 */
async function validInput(
  ctx: OperationContext,
  d: RegisterDefinition,
  p: RegisterParams,
  body: { data: Record<string, unknown> },
  mode: 'create' | 'update',
): Promise<RowInput> {
  const unreadable = unreadableReferences(d, body.data, systemLevelAuthority(ctx.caller));
  const parsed = rowBodySchema(d, mode).safeParse(body);
  const invalid = parsed.success ? [] : bodyErrors(parsed.error).filter((e) => !unreadable.some((u) => u.pointer === e.pointer));
  if (unreadable.length > 0 || invalid.length > 0 || !parsed.success) throw validationFailed([...unreadable, ...invalid]);
  const references = contactReferences(d, parsed.data.data);
  const active = await activeContactIds(p.system, [...new Set(references.map((r) => r.id))]);
  const unknown = references.filter((r) => !active.has(r.id));
  if (unknown.length > 0) {
    throw validationFailed(
      unknown.map((r) => ({ pointer: `/data/${r.column}`, detail: 'is not an active contact of this system', code: 'invalid_reference' })),
    );
  }
  return parsed.data.data;
}

export const listSystemRegisterRows = operation({
  id: 'listSystemRegisterRows',
  group: 'registers',
  method: 'GET',
  path: BASE,
  summary: "List the rows of a system register, or of the organisation's shared register, oldest first.",
  credential: ['organisation'],
  permission: { organisation: [['view-registers']] },
  mode: 'read',
  success: 200,
  params: RegisterParams,
  query: PageQuery,
  response: z.array(RegisterRow),
  paginated: true,
  errors: [422],
  sideEffects: [],
  prefetch: (p) => {
    const d = reachableDefinition(p.definition);
    return [keys.system(p.organisation, p.system), ...(d ? [countersKey(scopeOf(d, p))] : [])];
  },
  handle: async (ctx, { params }) => {
    const { definition, scope } = systemRegisterOf(ctx, params);
    const authority = systemLevelAuthority(ctx.caller);
    const page = await rowsPage(scope, definition.id, ctx.page);
    return { data: page.map((r) => rowView(definition, r.row, authority)), total: rowCount(ctx.prefetched(countersKey(scope)), definition.id) };
  },
});

export const createSystemRegisterRow = operation({
  id: 'createSystemRegisterRow',
  group: 'registers',
  method: 'POST',
  path: BASE,
  summary: 'Create a row of a system register or of the shared register (body {data: {<column_id>: value}}).',
  description: 'Contact references need view-contacts and an active contact of this system; control and document references cannot be set at system level.',
  credential: ['organisation'],
  permission: { organisation: [['manage-registers', 'view-registers']] },
  mode: 'mutation',
  success: 201,
  params: RegisterParams,
  query: NoQuery,
  body: { schema: CreateRegisterRow, mediaType: 'application/json' },
  response: RegisterRow,
  etag: true,
  idempotencyKey: true,
  errors: [400, 409, 415, 422],
  sideEffects: ['Creates the register row', "Claims the row's logical key", 'Writes an audit record'],
  prefetch: ({ organisation, system }) => [keys.system(organisation, system)],
  redact: ({ data, etag }, caller) => {
    const redacted = redactRow(data, systemLevelAuthority(caller));
    const version = etag ? etagVersion(etag) : undefined;
    // The ETag names the view the replayed body shows, which keeps what was hidden at creation hidden.
    return { data: redacted, etag: version === undefined ? etag : etagFor(ETAG_KIND, data.id, version, viewOfRedacted(redacted.redacted_fields)) };
  },
  handle: async (ctx, { params, body }) => {
    const { definition, scope } = systemRegisterOf(ctx, params);
    const input = await validInput(ctx, definition, params, body, 'create');
    const authority = systemLevelAuthority(ctx.caller);
    const at = ctx.now.toISOString();
    const data = mergeRowData({}, input);
    const row: StoredRegisterRow = {
      id: nextRowId(ctx.now.getTime()),
      definition_id: definition.id,
      owner: scope.owner,
      organisation_id: params.organisation,
      system_id: scope.owner === 'system' ? params.system : null,
      data,
      created_at: at,
      updated_at: at,
      version: 1,
    };
    const path = BASE.replace('{organisation}', params.organisation).replace('{system}', params.system).replace('{definition}', definition.id);
    return {
      data: rowView(definition, row, authority),
      etag: etagOf(definition, row, authority),
      location: `/api/v1${path}/${row.id}`,
      auditTarget: { organisation: params.organisation, system: params.system, definition: definition.id, row: row.id },
      writes: createRowWrites(scope, { row, logicalKey: logicalKeyOf(definition, data) }, keyTaken(definition)),
    };
  },
});

export const getSystemRegisterRow = operation({
  id: 'getSystemRegisterRow',
  group: 'registers',
  method: 'GET',
  path: `${BASE}/{row}`,
  summary: 'Read a register row with its ETag; columns this credential cannot read are redacted.',
  credential: ['organisation'],
  permission: { organisation: [['view-registers']] },
  mode: 'read',
  success: 200,
  params: RowParams,
  query: NoQuery,
  response: RegisterRow,
  etag: true,
  errors: [422],
  sideEffects: [],
  prefetch: rowPrefetch,
  handle: async (ctx, { params }) => {
    const { definition, scope } = systemRegisterOf(ctx, params);
    const { row } = rowOf(ctx, scope, params);
    const authority = systemLevelAuthority(ctx.caller);
    return { data: rowView(definition, row, authority), etag: etagOf(definition, row, authority) };
  },
});

export const updateSystemRegisterRow = operation({
  id: 'updateSystemRegisterRow',
  group: 'registers',
  method: 'PATCH',
  path: `${BASE}/{row}`,
  summary: 'Edit a register row (JSON merge patch per column of data, If-Match).',
  description: "The If-Match ETag is the one of this credential's own view of the row. Reference rules are those of the create.",
  credential: ['organisation'],
  permission: { organisation: [['manage-registers', 'view-registers']] },
  mode: 'mutation',
  success: 200,
  params: RowParams,
  query: NoQuery,
  body: { schema: UpdateRegisterRow, mediaType: 'application/merge-patch+json' },
  response: RegisterRow,
  etag: true,
  ifMatch: true,
  errors: [409, 412, 415, 422, 428],
  sideEffects: ['Updates the register row', "Moves the row's logical-key claim when the key changes", 'Writes an audit record'],
  prefetch: rowPrefetch,
  handle: async (ctx, { params, body }) => {
    const { definition, scope } = systemRegisterOf(ctx, params);
    const current = rowOf(ctx, scope, params);
    const input = await validInput(ctx, definition, params, body, 'update');
    const authority = systemLevelAuthority(ctx.caller);
    requireVersion(ctx.ifMatch, ETAG_KIND, current.row.id, current.row.version, rowViewName(definition, authority));
    const data = mergeRowData(current.row.data, input);
    const next: StoredRegisterRow = { ...current.row, data, updated_at: ctx.now.toISOString(), version: current.row.version + 1 };
    return {
      data: rowView(definition, next, authority),
      etag: etagOf(definition, next, authority),
      auditTarget: { organisation: params.organisation, system: params.system, definition: definition.id, row: next.id },
      writes: updateRowWrites(scope, current, { row: next, logicalKey: logicalKeyOf(definition, data) }, keyTaken(definition)),
    };
  },
});

export const rowOperations = [listSystemRegisterRows, createSystemRegisterRow, getSystemRegisterRow, updateSystemRegisterRow];
