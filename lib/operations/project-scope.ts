import {
  Engagement,
  engagementView,
  Scope,
  SCOPE_TECHNOLOGIES,
  UpdateEngagement,
  UpdateScope,
  type ProviderSelection,
  type StoredProject,
} from '../domain/projects.js';
import { etagFor, requireVersion } from './etag.js';
import { validationFailed } from '../errors.js';
import { keys } from '../store/keys.js';
import { getMany, keyString, type Item } from '../store/read.js';
import { replaceVersioned } from '../store/versioned.js';
import { NoQuery } from './common.js';
import { operation, type OperationContext } from './operation.js';
import { SETUP_PROJECT_PATH, SetupProjectParams, projectRecalculation, requireEditable, setupProjectOf } from './project-access.js';
import { engagementOf, scopeView } from './scope-views.js';

/* Scope: organisation credentials read and save it with its ETag; project credentials read it without management metadata. */

const SCOPE_KIND = 'project-scope';
/** Selections must name published assurance releases of shared providers. */
async function checkSelections(selections: readonly ProviderSelection[]): Promise<void> {
  const wanted = selections.map((s) => keys.assuranceRelease(s.provider_id, s.release_id));
  const found = wanted.length ? await getMany(wanted) : new Map<string, Item>();
  const errors = wanted.flatMap((k, i) =>
    found.get(keyString(k))?.status === 'published'
      ? []
      : [{ pointer: `/provider_selections/${i}`, code: 'unknown_provider_release', detail: 'is not a published assurance release of a shared provider' }],
  );
  if (errors.length) throw validationFailed(errors);
}

const technologiesChanged = (before: Record<string, unknown>, after: Record<string, unknown>) =>
  SCOPE_TECHNOLOGIES.some((t) => (before[t] ?? null) !== (after[t] ?? null));

const scopePrefetch = (p: SetupProjectParams) => [keys.project(p.project), keys.projectScope(p.project)];
const scopeVersion = (ctx: OperationContext, project: StoredProject) => Number(ctx.prefetched(keys.projectScope(project.id))?.version ?? 0);

export const getSetupProjectScope = operation({
  id: 'getSetupProjectScope',
  group: 'setup-projects',
  method: 'GET',
  path: `${SETUP_PROJECT_PATH}/scope`,
  summary: 'Read the saved assessment scope and provider selections, with the scope ETag.',
  credential: ['organisation'],
  permission: { organisation: [['manage-projects', 'view-projects']] },
  mode: 'read',
  success: 200,
  params: SetupProjectParams,
  query: NoQuery,
  response: Scope,
  etag: true,
  errors: [422],
  sideEffects: [],
  prefetch: scopePrefetch,
  handle: async (ctx, { params }) => {
    const project = setupProjectOf(ctx, params);
    return { data: scopeView(ctx.prefetched(keys.projectScope(project.id)), true), etag: etagFor(SCOPE_KIND, project.id, scopeVersion(ctx, project)) };
  },
});

export const updateSetupProjectScope = operation({
  id: 'updateSetupProjectScope',
  group: 'setup-projects',
  method: 'PATCH',
  path: `${SETUP_PROJECT_PATH}/scope`,
  summary: 'Save the scope: supplied data replaces the saved data; omitted provider_selections are kept and [] clears them.',
  description: 'A change to the in-scope technologies recalculates applicability recommendations of a populated project.',
  credential: ['organisation'],
  permission: { organisation: [['manage-projects', 'view-projects']] },
  mode: 'mutation',
  success: 200,
  params: SetupProjectParams,
  query: NoQuery,
  body: { schema: UpdateScope, mediaType: 'application/merge-patch+json' },
  response: Scope,
  etag: true,
  ifMatch: true,
  errors: [412, 415, 422, 428],
  uses: { queues: ['recalculate'] },
  sideEffects: ['Saves the scope', 'Marks applicability for recalculation when in-scope technologies change', 'Writes an audit record'],
  prefetch: scopePrefetch,
  handle: async (ctx, { params, body }) => {
    const project = setupProjectOf(ctx, params);
    const current = ctx.prefetched(keys.projectScope(project.id));
    const version = scopeVersion(ctx, project);
    requireVersion(ctx.ifMatch, SCOPE_KIND, project.id, version);
    requireEditable(project);
    if (body.provider_selections) await checkSelections(body.provider_selections);
    const at = ctx.now.toISOString();
    const before = (current?.data as Record<string, unknown> | undefined) ?? {};
    const item: Record<string, unknown> & ReturnType<typeof keys.projectScope> = {
      ...(current ?? {}),
      ...keys.projectScope(project.id),
      entity: 'project-scope',
      data: body.data ?? before,
      provider_selections: body.provider_selections ?? (current?.provider_selections as ProviderSelection[] | undefined) ?? [],
      updated_at: at,
      updated_by: ctx.caller.userId,
      ...(body.provider_selections ? { provider_selections_updated_at: at, provider_selections_updated_by: ctx.caller.userId } : {}),
    };
    const writes = [replaceVersioned(item, version)];
    // Whatever the lifecycle: a population that starts meanwhile may have read the old scope (the job skips Setup projects).
    const recalculation = body.data && technologiesChanged(before, body.data) ? projectRecalculation(ctx, project) : undefined;
    if (recalculation) writes.push(recalculation.write);
    return {
      data: scopeView(item as unknown as Item, true),
      etag: etagFor(SCOPE_KIND, project.id, version + 1),
      writes,
      ...(recalculation ? { afterCommit: recalculation.afterCommit } : {}),
      auditDetails: { replaced: [body.data ? 'data' : '', body.provider_selections ? 'provider_selections' : ''].filter(Boolean).join(',') },
    };
  },
});

/* Engagement: organisation credentials read every field (setup-only ones need manage-projects); project credentials the allowlisted subset. */

const ENGAGEMENT_KIND = 'project-engagement';
const engagementPrefetch = (p: SetupProjectParams) => [keys.project(p.project), keys.projectEngagement(p.project)];
const viewName = (full: boolean) => (full ? '' : 'allowlisted');

export const getSetupProjectEngagement = operation({
  id: 'getSetupProjectEngagement',
  group: 'setup-projects',
  method: 'GET',
  path: `${SETUP_PROJECT_PATH}/engagement`,
  summary: 'Read the engagement details with their ETag. Setup-only fields need manage-projects.',
  credential: ['organisation'],
  permission: { organisation: [['view-projects']] },
  mode: 'read',
  success: 200,
  params: SetupProjectParams,
  query: NoQuery,
  response: Engagement,
  etag: true,
  errors: [422],
  sideEffects: [],
  prefetch: engagementPrefetch,
  handle: async (ctx, { params }) => {
    const project = setupProjectOf(ctx, params);
    const full = ctx.caller.permissions.has('manage-projects');
    const e = engagementOf(ctx, project.id);
    return { data: engagementView(e.data, e.updatedAt, full), etag: etagFor(ENGAGEMENT_KIND, project.id, e.version, viewName(full)) };
  },
});

export const updateSetupProjectEngagement = operation({
  id: 'updateSetupProjectEngagement',
  group: 'setup-projects',
  method: 'PATCH',
  path: `${SETUP_PROJECT_PATH}/engagement`,
  summary: 'Change engagement details (JSON merge patch per field, If-Match the engagement ETag).',
  credential: ['organisation'],
  permission: { organisation: [['manage-projects', 'view-projects']] },
  mode: 'mutation',
  success: 200,
  params: SetupProjectParams,
  query: NoQuery,
  body: { schema: UpdateEngagement, mediaType: 'application/merge-patch+json' },
  response: Engagement,
  etag: true,
  ifMatch: true,
  errors: [412, 415, 422, 428],
  sideEffects: ['Updates the engagement details', 'Writes an audit record'],
  prefetch: engagementPrefetch,
  handle: async (ctx, { params, body }) => {
    const project = setupProjectOf(ctx, params);
    const e = engagementOf(ctx, project.id);
    requireVersion(ctx.ifMatch, ENGAGEMENT_KIND, project.id, e.version);
    requireEditable(project);
    const data: Record<string, unknown> = { ...(e.data ?? {}), ...body };
    for (const [k, v] of Object.entries(body)) if (v === null) delete data[k];
    const end = data.end_date as string | undefined;
    const start = data.start_date as string | undefined;
    if (start && end && end < start) throw validationFailed([{ pointer: '/end_date', detail: 'must not precede start_date' }]);
    const at = ctx.now.toISOString();
    const item = { ...keys.projectEngagement(project.id), entity: 'project-engagement', data, updated_at: at, updated_by: ctx.caller.userId };
    return {
      data: engagementView(data, at, true),
      etag: etagFor(ENGAGEMENT_KIND, project.id, e.version + 1),
      writes: [replaceVersioned(item, e.version)],
      auditDetails: { changed_fields: Object.keys(body).join(',') },
    };
  },
});

export const setupScopeOperations = [getSetupProjectScope, updateSetupProjectScope, getSetupProjectEngagement, updateSetupProjectEngagement];
