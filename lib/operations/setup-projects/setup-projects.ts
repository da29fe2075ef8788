import * as z from 'zod';
import { newUlid } from '../../domain/ids.js';
import { getRelease } from '../../store/catalogue-releases.js';
import { toOrganisation } from '../../store/organisations.js';
import { CreateProject, SetupProject, setupProjectView, UpdateSetupProject, workflowSettingsOf, type StoredProject } from '../../domain/projects.js';
import { etagFor, requireIfMatch } from '../kernel/etag.js';
import { notFound, validationFailed } from '../../errors.js';
import { keys } from '../../store/keys.js';
import { createProjectWrites, projectCount, projectItem, projectsPage } from '../../store/projects.js';
import { replaceVersioned } from '../../store/versioned.js';
import { NoQuery, PageQuery, SystemParams } from '../kernel/common.js';
import { operation } from './declare.js';
import {
  SETUP_ETAG_KIND,
  SETUP_PROJECT_PATH,
  SetupProjectParams,
  diagramOf,
  projectRecalculation,
  requireEditable,
  setupEtag,
  setupPrefetch,
  setupProjectOf,
  setupProjectUrl,
  setupVersion,
  unchanged,
} from '../projects/access.js';

const PROJECTS_PATH = '/organisations/{organisation}/systems/{system}/projects';

export const listSystemProjects = operation({
  id: 'listSystemProjects',
  method: 'GET',
  path: PROJECTS_PATH,
  summary: "List the system's projects, oldest first. Setup fields need manage-projects.",
  description:
    "Without manage-projects each project is listed without its setup fields. The total is the system's project count; a system of another organisation is 404.",
  credential: ['organisation'],
  permission: { organisation: [['view-projects']] },
  success: 200,
  params: SystemParams,
  query: PageQuery,
  response: () => z.array(SetupProject()),
  paginated: true,
  sideEffects: [],
  prefetch: ({ organisation, system }) => [keys.system(organisation, system), keys.systemCounters(system)],
  handle: async (ctx, { params }) => {
    if (!ctx.prefetched(keys.system(params.organisation, params.system))) throw notFound();
    const full = ctx.caller.permissions.has('manage-projects');
    const projects = await projectsPage(params.system, ctx.page);
    return { data: projects.map((p) => setupProjectView(p, full)), total: projectCount(ctx.prefetched(keys.systemCounters(params.system))) };
  },
});

export const createProject = operation({
  id: 'createProject',
  method: 'POST',
  path: PROJECTS_PATH,
  summary: 'Create one Setup project under the system, with its ISM release, licensed classification and Essential Eight target.',
  description: 'Start population afterwards with POST .../population and the setup ETag this returns.',
  credential: ['organisation'],
  permission: { organisation: [['manage-projects', 'view-projects']] },
  success: 201,
  params: SystemParams,
  query: NoQuery,
  body: { schema: CreateProject, mediaType: 'application/json' },
  response: SetupProject,
  etag: true,
  idempotencyKey: true,
  sideEffects: ['Creates the project in Setup', 'Writes an audit record'],
  prefetch: ({ organisation, system }) => [keys.organisation(organisation), keys.system(organisation, system)],
  handle: async (ctx, { params, body }) => {
    const organisation = ctx.prefetched(keys.organisation(params.organisation));
    if (!organisation || !ctx.prefetched(keys.system(params.organisation, params.system))) throw notFound();
    const release = await getRelease(body.ism_release_id);
    if (release?.status !== 'complete') {
      throw validationFailed([{ pointer: '/ism_release_id', code: 'unknown_release', detail: 'is not an ISM release listed in setup-options' }]);
    }
    if (!(toOrganisation(organisation).licensed_classifications ?? []).includes(body.classification)) {
      throw validationFailed([{ pointer: '/classification', code: 'classification_not_licensed', detail: 'is not licensed for this organisation' }]);
    }
    const at = ctx.now.toISOString();
    const project: StoredProject = {
      id: newUlid(ctx.now.getTime()),
      organisation_id: params.organisation,
      system_id: params.system,
      name: body.name,
      description: body.description ?? null,
      ism_release_id: body.ism_release_id,
      ism_release_version: release.version,
      classification: body.classification,
      essential_eight_target: body.essential_eight_target,
      control_workflow: workflowSettingsOf(body),
      lifecycle_state: 'setup',
      archived: false,
      population_run_id: null,
      population_status: 'not_started',
      created_at: at,
      created_by: ctx.caller.userId,
      updated_at: at,
      version: 1,
    };
    const target = { ...params, project: project.id };
    return {
      data: setupProjectView(project, true),
      etag: setupEtag(project, undefined),
      location: setupProjectUrl(target),
      auditTarget: target,
      writes: createProjectWrites(project),
    };
  },
});

export const getSetupProject = operation({
  id: 'getSetupProject',
  method: 'GET',
  path: SETUP_PROJECT_PATH,
  summary: 'Read a project with its setup ETag. Setup fields need manage-projects.',
  description:
    'The setup ETag covers the project and its network diagram, and differs between the full and the reduced view; updateSetupProject, startPopulation and uploadNetworkDiagram name it in If-Match. Without manage-projects the setup fields are absent.',
  credential: ['organisation'],
  permission: { organisation: [['view-projects']] },
  success: 200,
  params: SetupProjectParams,
  query: NoQuery,
  response: SetupProject,
  etag: true,
  sideEffects: [],
  prefetch: (p) => setupPrefetch(p),
  handle: async (ctx, { params }) => {
    const project = setupProjectOf(ctx, params);
    const full = ctx.caller.permissions.has('manage-projects');
    return { data: setupProjectView(project, full), etag: setupEtag(project, diagramOf(ctx, project.id), full) };
  },
});

export const updateSetupProject = operation({
  id: 'updateSetupProject',
  method: 'PATCH',
  path: SETUP_PROJECT_PATH,
  summary: 'Edit project setup (name, description, Essential Eight target, control workflow approvals) with If-Match the setup ETag.',
  description:
    'project_edit_reason is required when the Essential Eight target changes; after setup, a target change queues an applicability recalculation, which project health shows as pending until it has run.',
  credential: ['organisation'],
  permission: { organisation: [['manage-projects', 'view-projects']] },
  success: 200,
  params: SetupProjectParams,
  query: NoQuery,
  body: { schema: UpdateSetupProject, mediaType: 'application/merge-patch+json' },
  response: SetupProject,
  etag: true,
  ifMatch: true,
  sideEffects: [
    'Updates the project setup',
    'Marks applicability for recalculation when the Essential Eight target changes',
    'Writes an audit record with the edit reason',
  ],
  prefetch: (p) => setupPrefetch(p),
  handle: async (ctx, { params, body }) => {
    const project = setupProjectOf(ctx, params);
    const diagram = diagramOf(ctx, project.id);
    requireIfMatch(ctx.ifMatch, etagFor(SETUP_ETAG_KIND, project.id, setupVersion(project, diagram)));
    requireEditable(project);
    const { project_edit_reason: reason, ...changes } = body;
    const targetChanged = changes.essential_eight_target !== undefined && changes.essential_eight_target !== project.essential_eight_target;
    if (targetChanged && !reason) {
      throw validationFailed([
        { pointer: '/project_edit_reason', code: 'edit_reason_required', detail: 'is required when the Essential Eight target changes' },
      ]);
    }
    const next: StoredProject = {
      ...project,
      ...changes,
      control_workflow: { ...workflowSettingsOf(project), ...changes.control_workflow },
      updated_at: ctx.now.toISOString(),
      version: project.version + 1,
    };
    const writes = [replaceVersioned(projectItem(next), project.version), unchanged(keys.projectDiagram(project.id), diagram?.version ?? 0)];
    // Before population the run reads the target itself; afterwards the recalculation fills and re-recommends.
    const recalculation = targetChanged && project.lifecycle_state !== 'setup' ? projectRecalculation(ctx, project) : undefined;
    if (recalculation) writes.push(recalculation);
    return {
      data: setupProjectView(next, true),
      etag: setupEtag(next, diagram),
      writes,
      auditDetails: { project_edit_reason: reason ?? null, changed_fields: Object.keys(changes).join(',') },
    };
  },
});

export const setupProjectOperations = [listSystemProjects, createProject, getSetupProject, updateSetupProject];
