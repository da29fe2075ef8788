import * as z from 'zod';
import { RegisterRow, rowView } from '../../domain/register-rows.js';
import { keys } from '../../store/keys.js';
import { collectionCounts } from '../../store/counters.js';
import { countersKey, rowCount, rowsPage } from '../../store/registers.js';
import { NoQuery, PageQuery, Ulid } from '../kernel/common.js';
import type { OperationContext } from '../kernel/operation.js';
import { operation } from './declare.js';
import { CreateRegisterRow, createRow, redactReplay, rowEtag, storedRow, storedRowKey, UpdateRegisterRow, updateRow, type RowPlace } from './engine.js';
import { reachableDefinition, RegisterParams, REGISTERS_PATH, scopeOf, systemLevelAuthority, systemRegisterOf } from './definitions.js';
import { urlOf } from '../kernel/router.js';
import { once } from '../../domain/validation.js';

const BASE = `${REGISTERS_PATH}/{definition}/rows`;
const RowParams = once(() => RegisterParams().extend({ row: Ulid }));
type RowParams = z.output<ReturnType<typeof RowParams>>;

/** The stored row, read in the authentication round trip, when the definition is one this system exposes. */
const rowPrefetch = (p: RowParams) => {
  const d = reachableDefinition(p.definition);
  return [keys.system(p.organisation, p.system), ...(d ? [storedRowKey({ definition: d, scope: scopeOf(d, p) }, p.row)] : [])];
};

/** A system's rows: control and document references stay redacted and cannot be set (seed, boundary rule 1). */
function placeOf(ctx: OperationContext, p: RegisterParams): RowPlace {
  const { definition, scope } = systemRegisterOf(ctx, p);
  return { definition, scope, authority: systemLevelAuthority(ctx.caller), home: { systemId: p.system } };
}

export const listSystemRegisterRows = operation({
  id: 'listSystemRegisterRows',
  method: 'GET',
  path: BASE,
  summary: "List the rows of a system register, or of the organisation's shared register, oldest first.",
  description:
    "The organisation's shared register has the same rows from every system of the organisation. Contact columns need view-contacts; control and document columns are always redacted at system level (omitted from data and named in redacted_fields). Generated and project-owned definitions are 404 here.",
  credential: ['organisation'],
  permission: { organisation: [['view-registers']] },
  success: 200,
  params: RegisterParams,
  query: PageQuery,
  response: () => z.array(RegisterRow()),
  paginated: true,
  sideEffects: [],
  prefetch: (p) => {
    const d = reachableDefinition(p.definition);
    return [keys.system(p.organisation, p.system), ...(d ? [countersKey(scopeOf(d, p))] : [])];
  },
  handle: async (ctx, { params }) => {
    const { definition, scope, authority } = placeOf(ctx, params);
    const counters = collectionCounts(ctx.prefetched(countersKey(scope)));
    const page = await rowsPage(scope, definition.id, ctx.page, counters);
    return { data: page.map((r) => rowView(definition, r.row, authority)), total: rowCount(counters, definition.id) };
  },
});

export const createSystemRegisterRow = operation({
  id: 'createSystemRegisterRow',
  method: 'POST',
  path: BASE,
  summary: 'Create a row of a system register or of the shared register (body {data: {<column_id>: value}}).',
  description: 'Contact references need view-contacts and an active contact of this system; control and document references cannot be set at system level.',
  credential: ['organisation'],
  permission: { organisation: [['manage-registers', 'view-registers']] },
  success: 201,
  params: RegisterParams,
  query: NoQuery,
  body: { schema: CreateRegisterRow, mediaType: 'application/json' },
  response: RegisterRow,
  etag: true,
  idempotencyKey: true,
  sideEffects: ['Creates the register row', "Claims the row's logical key", 'Writes an audit record'],
  prefetch: ({ organisation, system }) => [keys.system(organisation, system)],
  redact: (stored, caller) => redactReplay(stored, systemLevelAuthority(caller)),
  handle: async (ctx, { params, body }) => {
    const place = placeOf(ctx, params);
    const owners = { organisation_id: params.organisation, system_id: place.scope.owner === 'system' ? params.system : null };
    const created = await createRow(ctx, place, body, owners);
    return {
      data: created.data,
      etag: created.etag,
      location: urlOf(getSystemRegisterRow, { ...params, row: created.row.id }),
      auditTarget: { organisation: params.organisation, system: params.system, definition: params.definition, row: created.row.id },
      writes: created.writes,
    };
  },
});

export const getSystemRegisterRow = operation({
  id: 'getSystemRegisterRow',
  method: 'GET',
  path: `${BASE}/{row}`,
  summary: 'Read a register row with its ETag; columns this credential cannot read are redacted.',
  description:
    "The ETag belongs to this credential's view of the row: credentials that see different columns get different ETags, and a PATCH names the one its own view gave. Contact columns need view-contacts; control and document columns are always redacted at system level.",
  credential: ['organisation'],
  permission: { organisation: [['view-registers']] },
  success: 200,
  params: RowParams,
  query: NoQuery,
  response: RegisterRow,
  etag: true,
  sideEffects: [],
  prefetch: rowPrefetch,
  handle: async (ctx, { params }) => {
    const place = placeOf(ctx, params);
    const { row } = storedRow(ctx.prefetched(storedRowKey(place, params.row)));
    return { data: rowView(place.definition, row, place.authority), etag: rowEtag(place.definition, row, place.authority) };
  },
});

export const updateSystemRegisterRow = operation({
  id: 'updateSystemRegisterRow',
  method: 'PATCH',
  path: `${BASE}/{row}`,
  summary: 'Edit a register row (JSON merge patch per column of data, If-Match).',
  description: "The If-Match ETag is the one of this credential's own view of the row. Reference rules are those of the create.",
  credential: ['organisation'],
  permission: { organisation: [['manage-registers', 'view-registers']] },
  success: 200,
  params: RowParams,
  query: NoQuery,
  body: { schema: UpdateRegisterRow, mediaType: 'application/merge-patch+json' },
  response: RegisterRow,
  etag: true,
  ifMatch: true,
  sideEffects: ['Updates the register row', "Moves the row's logical-key claim when the key changes", 'Writes an audit record'],
  prefetch: rowPrefetch,
  handle: async (ctx, { params, body }) => {
    const place = placeOf(ctx, params);
    const current = storedRow(ctx.prefetched(storedRowKey(place, params.row)));
    const updated = await updateRow(ctx, place, current, body);
    return {
      data: updated.data,
      etag: updated.etag,
      auditTarget: { organisation: params.organisation, system: params.system, definition: params.definition, row: updated.row.id },
      writes: updated.writes,
    };
  },
});

export const rowOperations = [listSystemRegisterRows, createSystemRegisterRow, getSystemRegisterRow, updateSystemRegisterRow];
