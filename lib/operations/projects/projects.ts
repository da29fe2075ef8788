import * as z from 'zod';
import { Contact, contactView } from '../../domain/contacts.js';
import { contextResponseSchema, contextView, ORGANISATION_CONTEXT, SYSTEM_CONTEXT } from '../../domain/context.js';
import { ProjectHealth } from '../../domain/health.js';
import { ProjectInputs, identityOf } from '../../domain/projects.js';
import { contactCount, contactsPage } from '../../store/contacts.js';
import { asContext } from '../../store/contexts.js';
import { keys } from '../../store/keys.js';
import { getMany, keyString } from '../../store/read.js';
import { NoParams, NoQuery, PageQuery } from '../kernel/common.js';
import { operation } from './declare.js';
import { ProjectParams, boundProjectOf } from './access.js';
import { healthKeys, healthOf } from './health.js';
import { once } from '../../domain/validation.js';

/* Health as project credentials read it (setup-health.ts declares the organisation credential's). */

export const getProjectHealth = operation({
  id: 'getProjectHealth',
  method: 'GET',
  path: '/projects/{project}/health',
  summary: 'Project health: population, recalculation and recommendation freshness, and warnings; applicability counts need view-controls.',
  description:
    'population follows the current run; recalculation is pending while an applicability recalculation of the organisation, system or project waits to run, stopped when one stopped because its requester lost authority, and idle otherwise. With view-controls the answer adds applicability_summary and the warnings applicability_conflicts and suggested_exclusions.',
  credential: ['project'],
  permission: { project: [['view-projects']] },
  success: 200,
  params: ProjectParams,
  query: NoQuery,
  response: ProjectHealth,
  sideEffects: [],
  prefetch: ({ project }) => healthKeys(project),
  handle: async (ctx, { params }) => {
    const project = boundProjectOf(ctx, params.project);
    // The organisation's and system's markers are keyed by identifiers the route does not name: one more read.
    const wider = [keys.organisationRecalculation(project.organisation_id), keys.applicabilityRecalculation(project.system_id)];
    const found = await getMany(wider);
    return {
      data: healthOf(
        ctx,
        project,
        wider.map((k) => found.get(keyString(k))),
      ),
    };
  },
});

/* Project-credential reads. */

export const listProjects = operation({
  id: 'listProjects',
  method: 'GET',
  path: '/projects',
  summary: 'The projects this credential reaches: exactly its bound project.',
  description:
    "A project credential is bound to one project, so the list holds that project alone (total 1), as getProjectInputs shows it. Use the setup-projects operations with an organisation credential to list a system's projects.",
  credential: ['project'],
  permission: { project: [['view-projects']] },
  success: 200,
  params: NoParams,
  query: PageQuery,
  response: () => z.array(ProjectInputs()),
  paginated: true,
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
  method: 'GET',
  path: '/projects/{project}/inputs',
  summary: 'Project identity, hierarchy references, ISM release, classification, lifecycle state and Essential Eight target; nothing else.',
  description:
    "The project must be the credential's bound project (404 otherwise). The answer is {data} alone, without meta, and carries no ETag: project setup changes only through the setup-projects operations.",
  credential: ['project'],
  permission: { project: [['view-projects']] },
  success: 200,
  params: ProjectParams,
  query: NoQuery,
  response: ProjectInputs,
  dataOnly: true,
  sideEffects: [],
  prefetch: ({ project }) => [keys.project(project)],
  handle: async (ctx, { params }) => ({ data: identityOf(boundProjectOf(ctx, params.project)) }),
});

const OrganisationContext = once(() => contextResponseSchema('OrganisationContext'));
const SystemContext = once(() => contextResponseSchema('SystemContext'));

export const getProjectContext = operation({
  id: 'getProjectContext',
  method: 'GET',
  path: '/projects/{project}/context',
  summary: "The canonical context of the project's organisation and system (read-only).",
  description:
    'Both contexts come with their definitions; fields never recorded are null. The contexts change only through updateOrganisationContext and updateSystemContext (organisation credentials).',
  credential: ['project'],
  permission: { project: [['manage-projects', 'view-projects']] },
  success: 200,
  params: ProjectParams,
  query: NoQuery,
  response: () => z.object({ organisation: OrganisationContext(), system: SystemContext() }).meta({ id: 'ProjectContext' }),
  sideEffects: [],
  prefetch: ({ project }) => [keys.project(project)],
  handle: async (ctx, { params }) => {
    const project = boundProjectOf(ctx, params.project);
    const wanted = [keys.organisationContext(project.organisation_id), keys.systemContext(project.system_id)] as const;
    const found = await getMany([...wanted]);
    return {
      data: {
        organisation: contextView(ORGANISATION_CONTEXT, asContext(found.get(keyString(wanted[0])))),
        system: contextView(SYSTEM_CONTEXT, asContext(found.get(keyString(wanted[1])))),
      },
    };
  },
});

export const listProjectContacts = operation({
  id: 'listProjectContacts',
  method: 'GET',
  path: '/projects/{project}/contacts',
  summary: "The active contacts of the project's system, oldest first.",
  description:
    "Contacts belong to the project's system and are managed with organisation credentials (createContact, updateContact). The total is the system's count of active contacts.",
  credential: ['project'],
  permission: { project: [['view-contacts']] },
  success: 200,
  params: ProjectParams,
  query: PageQuery,
  response: () => z.array(Contact()),
  paginated: true,
  sideEffects: [],
  prefetch: ({ project }) => [keys.project(project)],
  handle: async (ctx, { params }) => {
    const project = boundProjectOf(ctx, params.project);
    const [page, counters] = await Promise.all([contactsPage(project.system_id, ctx.page), getMany([keys.systemCounters(project.system_id)])]);
    return { data: page.map(contactView), total: contactCount(counters.get(keyString(keys.systemCounters(project.system_id)))) };
  },
});

export const projectReadOperations = [listProjects, getProjectInputs, getProjectHealth, getProjectContext, listProjectContacts];
