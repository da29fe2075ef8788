import type { Permission } from '../../lib/domain/permissions.js';
import type { Api } from './api.js';
import { arrangeControls, IMPLEMENTED } from './controls.js';
import type { World } from './projects.js';

export const documentsUrl = (projectId: string, rest = '') => `/api/v1/projects/${projectId}/documents${rest}`;

/** A populated project with a credential on it, and helpers over its documents. */
export async function arrangeDocuments(api: Api, world: World, options: { abilities?: Permission[]; project?: Record<string, unknown> } = {}) {
  const a = await arrangeControls(api, world, options);
  const url = (rest = '') => documentsUrl(a.p.id, rest);
  const generate = (key: string, body: Record<string, unknown> = {}, token = a.token) =>
    api.request('POST', url('/generation'), { token, body: { document_key: key, ...body } });
  const regenerate = (documentId: string, body: Record<string, unknown> = {}, token = a.token) =>
    api.request('POST', url(`/${documentId}/generation`), { token, body });
  const get = (documentId: string, token = a.token) => api.request('GET', url(`/${documentId}`), { token });
  const poll = (documentId: string, token = a.token) => api.request('GET', url(`/${documentId}/generation`), { token });
  const download = (documentId: string, token = a.token) => api.request('GET', url(`/${documentId}/download`), { token });
  /** Brings one control to assessed, with an assessor note, so that assessment documents have a conclusion to show. */
  const assess = async (catalogueId: string, notes = 'Assessor working note: interviewed the administrator.') => {
    await a.patch(catalogueId, IMPLEMENTED);
    await a.transition(catalogueId, { transition: 'editing_to_ready_for_assessment' });
    await a.transition(catalogueId, { transition: 'ready_for_assessment_to_assessing' });
    await a.patch(
      catalogueId,
      { overall_assessed_outcome: 'ineffective', overall_assessed_rationale: 'Seen in the records.', finding_severity: 'high', assessor_notes: notes },
      undefined,
      'assessment',
    );
    const { etag } = await a.read(catalogueId);
    const res = await api.request('POST', `/api/v1/projects/${a.p.id}/controls/${a.idOf(catalogueId)}/transitions`, {
      token: a.token,
      headers: { 'If-Match': etag },
      body: { transition: 'assessing_to_assessed' },
    });
    if (res.status !== 200) throw new Error(`control not assessed: ${res.status} ${JSON.stringify(res.body)}`);
  };
  return { ...a, url, generate, regenerate, get, poll, download, assess };
}
