import * as z from 'zod';
import type { StoredProject } from '../../domain/projects.js';
import { etagFor } from '../kernel/etag.js';
import { forbidden, notFound, preconditionFailed } from '../../errors.js';
import { itemUnchanged, projectNotArchived } from '../../store/guards.js';
import type { WriteItem } from '../../store/transact.js';
import { toProject } from '../../store/projects.js';
import { keys, type Key } from '../../store/keys.js';
import { asFileOwner, type FileOwner } from '../../store/file-owners.js';
import { Ulid } from '../kernel/common.js';
import { recalculationMarker } from '../../store/recalculations.js';
import type { OperationContext } from '../kernel/operation.js';
import { apiUrl } from '../../domain/api-paths.js';
import { once } from '../../domain/validation.js';

export const SetupProjectParams = once(() => z.strictObject({ organisation: Ulid, system: Ulid, project: Ulid }));
export type SetupProjectParams = z.output<ReturnType<typeof SetupProjectParams>>;
export const ProjectParams = once(() => z.strictObject({ project: Ulid }));

export const SETUP_PROJECT_PATH = '/organisations/{organisation}/systems/{system}/projects/{project}';
export const setupProjectUrl = (p: SetupProjectParams) => apiUrl(SETUP_PROJECT_PATH, p);

/** The project named by an organisation route, when it sits under that organisation and system; 404 otherwise. */
export function setupProjectOf(ctx: OperationContext, p: SetupProjectParams): StoredProject {
  const item = ctx.prefetched(keys.project(p.project));
  if (!item || item.organisation_id !== p.organisation || item.system_id !== p.system) throw notFound();
  return toProject(item);
}

/** The project of a project credential's route (the boundary check has matched it to the token). */
export function boundProjectOf(ctx: OperationContext, projectId: string): StoredProject {
  const item = ctx.prefetched(keys.project(projectId));
  if (!item) throw notFound();
  return toProject(item);
}

/** Organisation routes read the project, its diagram and its population run in the authentication round trip. */
export const setupPrefetch = (p: SetupProjectParams, ...more: Key[]) => [
  keys.project(p.project),
  keys.projectDiagram(p.project),
  keys.projectPopulation(p.project),
  ...more,
];

/**
 * The setup ETag covers the project's setup record and its network diagram (the artefacts view
 * shows the diagram's status). Both versions only grow, so their sum names each state once.
 */
export function setupVersion(project: StoredProject, diagram: FileOwner | undefined): number {
  return project.version + (diagram?.version ?? 0);
}

/** The project's network diagram, from the prefetched items (setupPrefetch, healthKeys). */
export const diagramOf = (ctx: OperationContext, projectId: string): FileOwner | undefined => asFileOwner(ctx.prefetched(keys.projectDiagram(projectId)));

export const SETUP_ETAG_KIND = 'project-setup';
export const setupEtag = (project: StoredProject, diagram: FileOwner | undefined, full = true) =>
  etagFor(SETUP_ETAG_KIND, project.id, setupVersion(project, diagram), full ? '' : 'identity');

/**
 * The setup ETag names two items; a write to one of them also checks that the other is still as
 * the client's ETag saw it, so two writes against the same ETag never both succeed.
 */
export const unchanged = (key: Key, version: number): WriteItem => itemUnchanged(key, version, () => preconditionFailed());

const archived = () => forbidden('project_archived', 'The project is archived; nothing in it can change.');

/** Seed, Errors: 403 when project editability does not allow the action. */
export function requireEditable(project: StoredProject): void {
  if (project.archived) throw archived();
}

/** The project unarchived when the write lands, as requireEditable found it when the request checked it: a condition of the write's transaction. */
export const projectStillEditable = (projectId: string): WriteItem =>
  // Only archiving fails the check, as the request's own editability check would have said.
  projectNotArchived(projectId, (current) => (current ? archived() : notFound()));

/**
 * A setup change that moves recommendations (scope technologies, the Essential Eight target): the
 * project's recalculation marker, in the change's transaction, which queues the job.
 */
export function projectRecalculation(ctx: OperationContext, project: StoredProject): WriteItem {
  return recalculationMarker({
    subject: { project_id: project.id },
    organisationId: project.organisation_id,
    userId: ctx.caller.userId,
    tokenId: ctx.caller.tokenId,
    authority: { scope: { kind: 'organisation', id: project.organisation_id }, permissions: ['manage-projects', 'view-projects'] },
    now: ctx.now,
  });
}
