import { permissionsOf, type Permission } from '../../lib/domain/permissions.js';
import type { Api } from './api.js';
import type { World } from './projects.js';

/** Every project permission except the assessment ones. */
export const WITHOUT_ASSESSMENT: Permission[] = permissionsOf('project').filter(
  (p) => !['view-control-assessment', 'edit-control-assessment', 'approve-assessments'].includes(p),
);

export const IMPLEMENTED = { implementation_status: 'implemented', implementation_description: 'Owners are named in the system security plan.' };

export const controlsUrl = (projectId: string, rest = '') => `/api/v1/projects/${projectId}/controls${rest}`;

/**
 * A populated PROTECTED project (its scope saved first when given), a credential on it, and
 * helpers over its controls by catalogue ID: read, patch, transition, and the project's health.
 */
export async function arrangeControls(
  api: Api,
  world: World,
  options: { abilities?: Permission[]; project?: Record<string, unknown>; scope?: Record<string, unknown> } = {},
) {
  const p = await world.populated(options.project, options.scope);
  const token = await world.projectToken(p.id, options.abilities);
  const list = await api.request('GET', controlsUrl(p.id, '?page[size]=100'), { token: await world.projectToken(p.id) });
  const ids = new Map<string, string>(list.body.data.map((c: { catalogue_id: string; id: string }) => [c.catalogue_id, c.id]));
  const idOf = (catalogueId: string) => ids.get(catalogueId)!;
  const read = async (catalogueId: string, as = token) => {
    const res = await api.request('GET', controlsUrl(p.id, `/${idOf(catalogueId)}`), { token: as });
    return { res, body: res.body.data, etag: res.headers.get('etag')! };
  };
  const patch = async (catalogueId: string, body: Record<string, unknown>, as = token, part = 'implementation') => {
    const { etag } = await read(catalogueId, as);
    return api.request('PATCH', controlsUrl(p.id, `/${idOf(catalogueId)}/${part}`), {
      token: as,
      headers: { 'If-Match': etag },
      body,
      contentType: 'application/merge-patch+json',
    });
  };
  const transition = async (catalogueId: string, body: Record<string, unknown>, as = token) => {
    const { etag } = await read(catalogueId, as);
    return api.request('POST', controlsUrl(p.id, `/${idOf(catalogueId)}/transitions`), { token: as, headers: { 'If-Match': etag }, body });
  };
  const health = async () => (await api.request('GET', `/api/v1/projects/${p.id}/health`, { token: await world.projectToken(p.id) })).body.data;
  return { p, token, idOf, read, patch, transition, health };
}
