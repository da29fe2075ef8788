import * as z from 'zod';
import { RegisterRow, rowView } from '../../domain/register-rows.js';
import { definitionById, REGISTER_DEFINITION_IDS, type RegisterDefinition } from '../../domain/registers.js';
import type { StoredProject } from '../../domain/projects.js';
import { notFound } from '../../errors.js';
import { controlSummaryRows } from '../../store/control-summary.js';
import { keys, type Key } from '../../store/keys.js';
import { getMany, keyString, type Item } from '../../store/read.js';
import { collectionCounts } from '../../store/counters.js';
import { countersKey, rowCount, rowsPage } from '../../store/registers.js';
import { NoQuery, PageQuery, Ulid } from '../kernel/common.js';
import type { OperationContext } from '../kernel/operation.js';
import { operation } from './declare.js';
import { requireEditable, projectStillEditable } from '../projects/access.js';
import { placeOf, PROJECT_REGISTERS_PATH, ProjectRegisterParams, projectAuthority, projectRegisterOf, requireRowWrites } from './project-access.js';
import { CreateRegisterRow, createRow, redactReplay, rowEtag, storedRow, storedRowKey, UpdateRegisterRow, updateRow } from './engine.js';
import { urlOf } from '../kernel/router.js';
import { once } from '../../domain/validation.js';

const BASE = `${PROJECT_REGISTERS_PATH}/{definition}/rows`;
const RowParams = once(() => ProjectRegisterParams().extend({ row: Ulid }));

const projectOwned = (id: string) => definitionById(id)?.owner === 'project';
const generated = (id: string) => id === REGISTER_DEFINITION_IDS.controlSummary;

/**
 * Read in the authentication round trip: the project, and what lives in its partition (its own
 * rows and counters, the summary the generated register counts from). Rows of the system's and
 * the organisation's registers are keyed by identifiers the project item holds: one more read.
 */
function projectPrefetch(p: ProjectRegisterParams & { row?: string }): Key[] {
  const d = definitionById(p.definition);
  const own: Key[] = [];
  if (d && generated(d.id)) own.push(keys.projectSummary(p.project));
  else if (d?.owner === 'project')
    own.push(p.row ? storedRowKey({ definition: d, scope: { owner: 'project', projectId: p.project } }, p.row) : keys.projectCounters(p.project));
  return [keys.project(p.project), ...own];
}

/** An item where the definition's rows live: prefetched in the project's partition, else one read of its owner's. */
async function itemWhereRowsLive(ctx: OperationContext, definition: RegisterDefinition, key: Key): Promise<Item | undefined> {
  return projectOwned(definition.id) ? ctx.prefetched(key) : (await getMany([key])).get(keyString(key));
}

const summaryRows = (ctx: OperationContext, project: StoredProject) => controlSummaryRows(project, ctx.prefetched(keys.projectSummary(project.id)));

export const listProjectRegisterRows = operation({
  id: 'listProjectRegisterRows',
  method: 'GET',
  path: BASE,
  summary: "List a register's rows as the project sees them, oldest first: the project's own, or its system's or organisation's shared ones.",
  description:
    'The control summary lists one row per dimension and value, counted from the project summary. Columns whose source this credential cannot read are redacted.',
  credential: ['project'],
  permission: { project: [['view-registers']] },
  success: 200,
  params: ProjectRegisterParams,
  query: PageQuery,
  response: () => z.array(RegisterRow()),
  paginated: true,
  sideEffects: [],
  prefetch: projectPrefetch,
  handle: async (ctx, { params }) => {
    const { project, definition } = projectRegisterOf(ctx, params);
    const place = placeOf(ctx, project, definition);
    if (definition.kind === 'generated') {
      const all = summaryRows(ctx, project);
      const from = (ctx.page.number - 1) * ctx.page.size;
      return { data: all.slice(from, from + ctx.page.size).map((row) => rowView(definition, row, place.authority)), total: all.length };
    }
    const key = countersKey(place.scope);
    const counters = collectionCounts(await itemWhereRowsLive(ctx, definition, key));
    const page = await rowsPage(place.scope, definition.id, ctx.page, counters);
    return { data: page.map((r) => rowView(definition, r.row, place.authority)), total: rowCount(counters, definition.id) };
  },
});

export const getProjectRegisterRow = operation({
  id: 'getProjectRegisterRow',
  method: 'GET',
  path: `${BASE}/{row}`,
  summary: 'Read a register row the project sees, with its ETag; columns this credential cannot read are redacted.',
  description:
    "Rows of the generated control summary are computed from the project summary at read time. Columns whose source this credential cannot read (contacts view-contacts, controls view-controls, documents view-docsuite) are omitted and named in redacted_fields, and the ETag belongs to this credential's view of the row.",
  credential: ['project'],
  permission: { project: [['view-registers']] },
  success: 200,
  params: RowParams,
  query: NoQuery,
  response: RegisterRow,
  etag: true,
  sideEffects: [],
  prefetch: projectPrefetch,
  handle: async (ctx, { params }) => {
    const { project, definition } = projectRegisterOf(ctx, params);
    const place = placeOf(ctx, project, definition);
    if (definition.kind === 'generated') {
      const row = summaryRows(ctx, project).find((r) => r.id === params.row);
      if (!row) throw notFound();
      return { data: rowView(definition, row, place.authority), etag: rowEtag(definition, row, place.authority) };
    }
    const key = storedRowKey(place, params.row);
    const item = await itemWhereRowsLive(ctx, definition, key);
    const { row } = storedRow(item);
    return { data: rowView(definition, row, place.authority), etag: rowEtag(definition, row, place.authority) };
  },
});

/** A write's target: a project-owned manual register (403 which one otherwise) of an editable project. */
function writablePlace(ctx: OperationContext, params: ProjectRegisterParams) {
  const { project, definition } = projectRegisterOf(ctx, params);
  requireRowWrites(definition);
  requireEditable(project);
  return { project, place: placeOf(ctx, project, definition) };
}

export const createProjectRegisterRow = operation({
  id: 'createProjectRegisterRow',
  method: 'POST',
  path: BASE,
  summary: 'Create a row of a project-owned register (body {data: {<column_id>: value}}).',
  description:
    'Shared registers answer 403 shared_register_read_only and the generated one 403 generated_register_read_only; replays check authority and project editability again. A reference needs read authority over its source (contacts view-contacts, controls view-controls, documents view-docsuite) and must resolve: an active contact of the system, a control ULID or ISM reference code of this project, a document catalogue key.',
  credential: ['project'],
  permission: { project: [['manage-registers', 'view-registers']] },
  success: 201,
  params: ProjectRegisterParams,
  query: NoQuery,
  body: { schema: CreateRegisterRow, mediaType: 'application/json' },
  response: RegisterRow,
  etag: true,
  idempotencyKey: true,
  sideEffects: ['Creates the register row', "Claims the row's logical key", 'Writes an audit record'],
  prefetch: ({ project }) => [keys.project(project)],
  recheck: (ctx, { params }) => {
    writablePlace(ctx, params);
  },
  redact: (stored, caller) => redactReplay(stored, projectAuthority(caller)),
  handle: async (ctx, { params, body }) => {
    const { project, place } = writablePlace(ctx, params);
    const created = await createRow(ctx, place, body, { organisation_id: project.organisation_id, system_id: project.system_id, project_id: project.id });
    return {
      data: created.data,
      etag: created.etag,
      location: urlOf(getProjectRegisterRow, { project: project.id, definition: params.definition, row: created.row.id }),
      auditTarget: { project: project.id, definition: params.definition, row: created.row.id },
      writes: [...created.writes, projectStillEditable(project.id)],
    };
  },
});

export const updateProjectRegisterRow = operation({
  id: 'updateProjectRegisterRow',
  method: 'PATCH',
  path: `${BASE}/{row}`,
  summary: 'Edit a row of a project-owned register (JSON merge patch per column of data, If-Match).',
  description: "The If-Match ETag is the one of this credential's own view of the row. Write refusals and reference rules are those of the create.",
  credential: ['project'],
  permission: { project: [['manage-registers']] },
  success: 200,
  params: RowParams,
  query: NoQuery,
  body: { schema: UpdateRegisterRow, mediaType: 'application/merge-patch+json' },
  response: RegisterRow,
  etag: true,
  ifMatch: true,
  sideEffects: ['Updates the register row', "Moves the row's logical-key claim when the key changes", 'Writes an audit record'],
  prefetch: projectPrefetch,
  handle: async (ctx, { params, body }) => {
    const { project, place } = writablePlace(ctx, params);
    const current = storedRow(ctx.prefetched(storedRowKey(place, params.row)));
    const updated = await updateRow(ctx, place, current, body);
    return {
      data: updated.data,
      etag: updated.etag,
      auditTarget: { project: project.id, definition: params.definition, row: updated.row.id },
      writes: [...updated.writes, projectStillEditable(project.id)],
    };
  },
});

export const projectRowOperations = [listProjectRegisterRows, createProjectRegisterRow, getProjectRegisterRow, updateProjectRegisterRow];
