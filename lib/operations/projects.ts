import { z } from 'zod';
import { Contact, contactView } from '../domain/contacts.js';
import { contextResponseSchema, contextView, ORGANISATION_CONTEXT, SYSTEM_CONTEXT } from '../domain/context.js';
import { projectHealth, ProjectHealth } from '../domain/health.js';
import { ProjectInputs, identityOf, type StoredProject } from '../domain/projects.js';
import { contactsPage } from '../store/contacts.js';
import { countsBy } from '../store/controls.js';
import { keys, type Key } from '../store/keys.js';
import { getMany, keyString, type Item } from '../store/read.js';
import { NoParams, NoQuery, PageQuery } from './common.js';
import { operation, type OperationContext } from './operation.js';
import { ProjectParams, SETUP_PROJECT_PATH, SetupProjectParams, boundProjectOf, setupProjectOf } from './project-access.js';

/* Health, for both credential types. */

const markerOf = (item: Item | undefined) => (item ? [{ requested_at: String(item.requested_at), ...(item.stopped ? { stopped: String(item.stopped) } : {}) }] : []);


/** Health, given the organisation's and system's recalculation markers (the project's own is prefetched). */
function healthOf(ctx: OperationContext, project: StoredProject, wider: (Item | undefined)[]) {
  // Seed: applicability counts need view-controls; organisation credentials see no control-level health.
  const controlLevel = ctx.caller.type === 'project' && ctx.caller.permissions.has('view-controls');
  const summary = ctx.prefetched(keys.projectSummary(project.id));
  const counts = (name: string) => Number(summary?.[name] ?? 0);
  return projectHealth({
    project,
    markers: [...wider, ctx.prefetched(keys.projectRecalculation(project.id))].flatMap(markerOf),
    diagramStatus: ctx.prefetched(keys.projectDiagram(project.id))?.file_status as string | undefined,
    ...(controlLevel
      ? {
          summary: { controls: counts('controls'), applicable: counts('applicable'), not_applicable: counts('not_applicable'), suggested_exclusions: counts('suggested_exclusions'), conflicts: counts('conflicts') },
          byState: countsBy(summary, 'state_'),
        }
      : {}),
    controlLevelRedacted: !controlLevel,
  });
}

const healthKeys = (projectId: string): Key[] => [keys.project(projectId), keys.projectDiagram(projectId), keys.projectRecalculation(projectId), keys.projectSummary(projectId)];

export const getSetupProjectHealth = operation({
  id: 'getSetupProjectHealth',
  group: 'setup-projects',
  method: 'GET',
  path: `${SETUP_PROJECT_PATH}/health`,
  summary: 'Project health: population, recalculation and recommendation freshness, and warnings (no control-level health for organisation credentials).',
  credential: ['organisation'],
  permission: { organisation: [['view-projects']] },
  mode: 'read',
  success: 200,
  params: SetupProjectParams,
  query: NoQuery,
  response: ProjectHealth,
  errors: [422],
  sideEffects: [],
  prefetch: (p) => [...healthKeys(p.project), keys.organisationRecalculation(p.organisation), keys.applicabilityRecalculation(p.system)],
  handle: async (ctx, { params }) => {
    const project = setupProjectOf(ctx, params);
    return { data: healthOf(ctx, project, [ctx.prefetched(keys.organisationRecalculation(params.organisation)), ctx.prefetched(keys.applicabilityRecalculation(params.system))]) };
  },
});

export const getProjectHealth = operation({
  id: 'getProjectHealth',
  group: 'projects',
  method: 'GET',
  path: '/projects/{project}/health',
  summary: 'Project health: population, recalculation and recommendation freshness, and warnings; applicability counts need view-controls.',
  credential: ['project'],
  permission: { project: [['view-projects']] },
  mode: 'read',
  success: 200,
  params: ProjectParams,
  query: NoQuery,
  response: ProjectHealth,
  errors: [422],
  sideEffects: [],
  prefetch: ({ project }) => healthKeys(project),
  handle: async (ctx, { params }) => {
    const project = boundProjectOf(ctx, params.project);
    // The organisation's and system's markers are keyed by identifiers the route does not name: one more read.
    const wider = [keys.organisationRecalculation(project.organisation_id), keys.applicabilityRecalculation(project.system_id)];
    const found = await getMany(wider);
    return { data: healthOf(ctx, project, wider.map((k) => found.get(keyString(k)))) };
  },
});

/* Project-credential reads. */

export const listProjects = operation({
  id: 'listProjects',
  group: 'projects',
  method: 'GET',
  path: '/projects',
  summary: 'The projects this credential reaches: exactly its bound project.',
  credential: ['project'],
  permission: { project: [['view-projects']] },
  mode: 'read',
  success: 200,
  params: NoParams,
  query: PageQuery,
  response: z.array(ProjectInputs),
  paginated: true,
  errors: [422],
  sideEffects: [],
  prefetch: (_p, claims) => (claims.projectId ? [keys.project(claims.projectId)] : []),
  handle: async (ctx) => {
    const item = ctx.caller.projectId ? ctx.prefetched(keys.project(ctx.caller.projectId)) : undefined;
    const all = item ? [identityOf(boundProjectOf(ctx, ctx.caller.projectId!))] : [];
    const from = (ctx.page.number - 1) * ctx.page.size;
    return { data: all.slice(from, from + ctx.page.size), total: all.length };
  },
});

export const getProjectInputs = operation({
  id: 'getProjectInputs',
  group: 'projects',
  method: 'GET',
  path: '/projects/{project}/inputs',
  summary: 'Project identity, hierarchy references, ISM release, classification, lifecycle state and Essential Eight target; nothing else.',
  credential: ['project'],
  permission: { project: [['view-projects']] },
  mode: 'read',
  success: 200,
  params: ProjectParams,
  query: NoQuery,
  response: ProjectInputs,
  dataOnly: true,
  errors: [],
  sideEffects: [],
  prefetch: ({ project }) => [keys.project(project)],
  handle: async (ctx, { params }) => ({ data: identityOf(boundProjectOf(ctx, params.project)) }),
});

const OrganisationContext = contextResponseSchema('OrganisationContext');
const SystemContext = contextResponseSchema('SystemContext');

export const getProjectContext = operation({
  id: 'getProjectContext',
  group: 'projects',
  method: 'GET',
  path: '/projects/{project}/context',
  summary: "The canonical context of the project's organisation and system (read-only).",
  credential: ['project'],
  permission: { project: [['manage-projects', 'view-projects']] },
  mode: 'read',
  success: 200,
  params: ProjectParams,
  query: NoQuery,
  response: z.object({ organisation: OrganisationContext, system: SystemContext }).meta({ id: 'ProjectContext' }),
  errors: [422],
  sideEffects: [],
  prefetch: ({ project }) => [keys.project(project)],
  handle: async (ctx, { params }) => {
    const project = boundProjectOf(ctx, params.project);
    const wanted = [keys.organisationContext(project.organisation_id), keys.systemContext(project.system_id)] as const;
    const found = await getMany([...wanted]);
    return { data: { organisation: contextView(ORGANISATION_CONTEXT, found.get(keyString(wanted[0]))), system: contextView(SYSTEM_CONTEXT, found.get(keyString(wanted[1]))) } };
  },
});

export const listProjectContacts = operation({
  id: 'listProjectContacts',
  group: 'projects',
  method: 'GET',
  path: '/projects/{project}/contacts',
  summary: "The active contacts of the project's system, oldest first.",
  credential: ['project'],
  permission: { project: [['view-contacts']] },
  mode: 'read',
  success: 200,
  params: ProjectParams,
  query: PageQuery,
  response: z.array(Contact),
  paginated: true,
  errors: [422],
  sideEffects: [],
  prefetch: ({ project }) => [keys.project(project)],
  handle: async (ctx, { params }) => {
    const project = boundProjectOf(ctx, params.project);
    const [page, counters] = await Promise.all([contactsPage(project.system_id, ctx.page), getMany([keys.systemCounters(project.system_id)])]);
    return { data: page.map(contactView), total: Number(counters.get(keyString(keys.systemCounters(project.system_id)))?.contacts ?? 0) };
  },
});

export const projectReadOperations = [listProjects, getProjectInputs, getProjectHealth, getProjectContext, listProjectContacts];
export const setupHealthOperations = [getSetupProjectHealth];
