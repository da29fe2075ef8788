import { LIBRARY_DEFINITION_IDS } from '../../lib/domain/library-definitions.js';
import { permissionsOf, type Permission } from '../../lib/domain/permissions.js';
import type { StoredProject } from '../../lib/domain/projects.js';
import { fixtures, type Api } from './api.js';

export const itemPath = (project: string, definition: string = LIBRARY_DEFINITION_IDS.informationSecurityPolicy) =>
  `/api/v1/projects/${project}/library/${definition}`;
export const listPath = (project: string) => `/api/v1/projects/${project}/library`;

/** Projects of one operator's organisation, credentials on them and library requests, for the library tests. */
export function libraryWorld(api: Api, op: { userId: string; organisationId: string }) {
  const token = (projectId: string, abilities: readonly Permission[] = permissionsOf('project'), readOnly = false) =>
    fixtures.token(op.userId, 'project', { projectId, abilities, readOnly });

  /** A project and a project credential on it (every project permission unless told). */
  async function project(options: Partial<StoredProject> = {}, abilities: readonly Permission[] = permissionsOf('project')) {
    const id = await fixtures.project(op.organisationId, options);
    await fixtures.grant(op.userId, { kind: 'project', id }, permissionsOf('project'));
    return { id, token: await token(id, abilities) };
  }

  /** A new project's item as GET shows it before any edit: its path, credential and version-0 ETag. */
  async function fresh(definition: string = LIBRARY_DEFINITION_IDS.informationSecurityPolicy) {
    const p = await project();
    const path = itemPath(p.id, definition);
    const got = await api.request('GET', path, { token: p.token });
    return { ...p, path, etag: got.headers.get('etag')! };
  }

  const patch = (path: string, tok: string, etag: string | undefined, body: unknown, contentType?: string) =>
    api.request('PATCH', path, { token: tok, body, contentType, headers: etag ? { 'If-Match': etag } : {} });

  /** A user who is an active member of the organisation (project-scope access there). */
  async function member() {
    const userId = await fixtures.user();
    await fixtures.grant(userId, { kind: 'project', id: await fixtures.project(op.organisationId) }, ['view-controls']);
    return userId;
  }

  return { token, project, fresh, patch, member };
}
