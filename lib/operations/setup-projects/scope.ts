import { Engagement, engagementView, Scope, SCOPE_TECHNOLOGIES, UpdateEngagement, UpdateScope, type ProviderSelection } from '../../domain/projects.js';
import { etagFor, requireIfMatch } from '../kernel/etag.js';
import { validationFailed } from '../../errors.js';
import { keys } from '../../store/keys.js';
import { selectionDeltas } from '../../domain/providers.js';
import { selectionWrites as providerSelectionWrites } from '../../store/providers.js';
import { getMany, keyString } from '../../store/read.js';
import type { WriteItem } from '../../store/transact.js';
import { replaceVersioned } from '../../store/versioned.js';
import { NoQuery } from '../kernel/common.js';
import { operation } from './declare.js';
import { SETUP_PROJECT_PATH, SetupProjectParams, projectRecalculation, requireEditable, setupProjectOf } from '../projects/access.js';
import { engagementOf, scopeOf, scopeView } from '../projects/scope-views.js';

/* Scope: organisation credentials read and save it with its ETag; project credentials read it without management metadata. */

const SCOPE_KIND = 'project-scope';
/**
 * Selections must name published assurance releases of live shared providers. The save moves each
 * provider's count of selecting scopes, on the condition that the provider still exists, so a
 * provider deleted meanwhile refuses the save, and a provider a scope selects refuses deletion.
 */
async function selectionWrites(before: readonly ProviderSelection[], after: readonly ProviderSelection[]): Promise<WriteItem[]> {
  const wanted = after.flatMap((s) => [keys.externalProvider(s.provider_id), keys.assuranceRelease(s.provider_id, s.release_id)]);
  const found = await getMany([...wanted, ...before.map((s) => keys.externalProvider(s.provider_id))]);
  const errors = after.flatMap((s, i) =>
    found.get(keyString(keys.assuranceRelease(s.provider_id, s.release_id)))?.status === 'published' &&
    found.has(keyString(keys.externalProvider(s.provider_id)))
      ? []
      : [{ pointer: `/provider_selections/${i}`, code: 'unknown_provider_release', detail: 'is not a published assurance release of a shared provider' }],
  );
  if (errors.length) throw validationFailed(errors);
  // Selections saved before their provider was deleted (none can be now) have nothing left to count.
  const deltas = new Map([...selectionDeltas(before, after)].filter(([provider]) => found.has(keyString(keys.externalProvider(provider)))));
  if (deltas.size > MAX_SELECTION_CHANGES) {
    throw validationFailed([{ pointer: '/provider_selections', code: 'too_many_selection_changes', detail: SELECTION_CHANGES_DETAIL }]);
  }
  return providerSelectionWrites(deltas, () =>
    validationFailed([{ pointer: '/provider_selections', code: 'unknown_provider_release', detail: 'names a provider deleted meanwhile' }]),
  );
}

/** One transaction holds the scope, a recalculation marker, the audit record and one counter per provider whose count moves. */
const MAX_SELECTION_CHANGES = 90;
const SELECTION_CHANGES_DETAIL = `one save may change the selections of at most ${MAX_SELECTION_CHANGES} providers; save the change in two steps`;

/** In order too: a control's guidance lists the selected releases in selection order. */
const selectionsChanged = (before: readonly ProviderSelection[], after: readonly ProviderSelection[]) =>
  before.length !== after.length || before.some((s, i) => s.provider_id !== after[i]!.provider_id || s.release_id !== after[i]!.release_id);

const technologiesChanged = (before: Record<string, unknown>, after: Record<string, unknown>) =>
  SCOPE_TECHNOLOGIES.some((t) => (before[t] ?? null) !== (after[t] ?? null));

const scopePrefetch = (p: SetupProjectParams) => [keys.project(p.project), keys.projectScope(p.project)];

export const getSetupProjectScope = operation({
  id: 'getSetupProjectScope',
  method: 'GET',
  path: `${SETUP_PROJECT_PATH}/scope`,
  summary: 'Read the saved assessment scope and provider selections, with the scope ETag.',
  description: 'A project whose scope was never saved reads as empty, with the version-0 ETag that the first updateSetupProjectScope names in If-Match.',
  credential: ['organisation'],
  permission: { organisation: [['manage-projects', 'view-projects']] },
  success: 200,
  params: SetupProjectParams,
  query: NoQuery,
  response: Scope,
  etag: true,
  sideEffects: [],
  prefetch: scopePrefetch,
  handle: async (ctx, { params }) => {
    const project = setupProjectOf(ctx, params);
    const { scope, version } = scopeOf(ctx, project.id);
    return { data: scopeView(scope, true), etag: etagFor(SCOPE_KIND, project.id, version) };
  },
});

export const updateSetupProjectScope = operation({
  id: 'updateSetupProjectScope',
  method: 'PATCH',
  path: `${SETUP_PROJECT_PATH}/scope`,
  summary: 'Save the scope: supplied data replaces the saved data; omitted provider_selections are kept and [] clears them.',
  description:
    'A change to the in-scope technologies recalculates applicability recommendations of a populated project; a change to provider_selections recalculates its controls\u2019 provider_guidance and the server-owned ec status (never over a status a person chose; deselection takes ec back). Project health shows a recalculation as pending until it has run.',
  credential: ['organisation'],
  permission: { organisation: [['manage-projects', 'view-projects']] },
  success: 200,
  params: SetupProjectParams,
  query: NoQuery,
  body: { schema: UpdateScope, mediaType: 'application/merge-patch+json' },
  response: Scope,
  etag: true,
  ifMatch: true,
  sideEffects: [
    'Saves the scope',
    'Marks applicability for recalculation when in-scope technologies change',
    'Marks provider effects on controls for recalculation when provider selections change',
    'Writes an audit record',
  ],
  prefetch: scopePrefetch,
  handle: async (ctx, { params, body }) => {
    const project = setupProjectOf(ctx, params);
    const { scope: current, version } = scopeOf(ctx, project.id);
    requireIfMatch(ctx.ifMatch, etagFor(SCOPE_KIND, project.id, version));
    requireEditable(project);
    const previous = current?.provider_selections ?? [];
    const selected = body.provider_selections ? await selectionWrites(previous, body.provider_selections) : [];
    const at = ctx.now.toISOString();
    const before = current?.data ?? {};
    const item = {
      ...(current ?? {}),
      ...keys.projectScope(project.id),
      entity: 'project-scope',
      data: body.data ?? before,
      provider_selections: body.provider_selections ?? previous,
      updated_at: at,
      updated_by: ctx.caller.userId,
      ...(body.provider_selections ? { provider_selections_updated_at: at, provider_selections_updated_by: ctx.caller.userId } : {}),
    };
    const writes = [replaceVersioned(item, version), ...selected];
    // Whatever the lifecycle: a population that starts meanwhile may have read the old scope (the job skips Setup projects).
    const recalculate =
      (body.data !== undefined && technologiesChanged(before, body.data)) ||
      (body.provider_selections !== undefined && selectionsChanged(previous, body.provider_selections));
    const recalculation = recalculate ? projectRecalculation(ctx, project) : undefined;
    if (recalculation) writes.push(recalculation);
    return {
      data: scopeView(item, true),
      etag: etagFor(SCOPE_KIND, project.id, version + 1),
      writes,
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
  method: 'GET',
  path: `${SETUP_PROJECT_PATH}/engagement`,
  summary: 'Read the engagement details with their ETag. Setup-only fields need manage-projects.',
  description: "The ETag differs between the full view and the view without setup-only fields; updateSetupProjectEngagement names the full view's.",
  credential: ['organisation'],
  permission: { organisation: [['view-projects']] },
  success: 200,
  params: SetupProjectParams,
  query: NoQuery,
  response: Engagement,
  etag: true,
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
  method: 'PATCH',
  path: `${SETUP_PROJECT_PATH}/engagement`,
  summary: 'Change engagement details (JSON merge patch per field, If-Match the engagement ETag).',
  description:
    'Omitted fields are kept and null clears one. end_date must not precede start_date as the patched details have them (422 at /end_date). An archived project is 403 project_archived.',
  credential: ['organisation'],
  permission: { organisation: [['manage-projects', 'view-projects']] },
  success: 200,
  params: SetupProjectParams,
  query: NoQuery,
  body: { schema: UpdateEngagement, mediaType: 'application/merge-patch+json' },
  response: Engagement,
  etag: true,
  ifMatch: true,
  sideEffects: ['Updates the engagement details', 'Writes an audit record'],
  prefetch: engagementPrefetch,
  handle: async (ctx, { params, body }) => {
    const project = setupProjectOf(ctx, params);
    const e = engagementOf(ctx, project.id);
    requireIfMatch(ctx.ifMatch, etagFor(ENGAGEMENT_KIND, project.id, e.version));
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
