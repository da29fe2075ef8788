import { newUlid } from '../../lib/domain/ids.js';
import type { Api } from './api.js';

export const artefactsUrl = (providerId: string) => `/api/v1/external-providers/${providerId}/artefacts`;
export const bulkUrl = (providerId: string, releaseId: string) => `/api/v1/external-providers/${providerId}/assurance-releases/${releaseId}/artefacts`;

/** A form carrying a link instead of a file, with fields beside it. */
export function linkForm(url: string, fields: Record<string, string> = {}): FormData {
  const data = new FormData();
  for (const [k, v] of Object.entries(fields)) data.append(k, v);
  data.append('url', url);
  return data;
}

/** Requests about the artefacts of one provider, by one credential unless told otherwise. */
export function providerArtefacts(api: Api, providerId: string, token: string) {
  const create = (data: FormData, key = newUlid(), as = token) =>
    api.request('POST', artefactsUrl(providerId), { token: as, form: data, headers: { 'Idempotency-Key': key } });
  const get = (id: string, as = token) => api.request('GET', `${artefactsUrl(providerId)}/${id}`, { token: as });
  const list = (query = '', as = token) => api.request('GET', `${artefactsUrl(providerId)}${query}`, { token: as });
  const remove = (id: string, etag: string, as = token) =>
    api.request('DELETE', `${artefactsUrl(providerId)}/${id}`, { token: as, headers: { 'If-Match': etag } });
  const download = (id: string, as = token) => api.request('GET', `${artefactsUrl(providerId)}/${id}/file`, { token: as });
  /** Creates an artefact (201 expected): its body's data. */
  async function created(data: FormData, as = token) {
    const res = await create(data, newUlid(), as);
    if (res.status !== 201) throw new Error(`artefact refused: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data as { id: string } & Record<string, unknown>;
  }
  /** An upload session of this provider with the file posted to its presigned URL: its id. */
  async function session(fileName: string, bytes: Buffer, as = token): Promise<string> {
    const made = await api.request('POST', `/api/v1/external-providers/${providerId}/artefact-upload-sessions`, { token: as, body: { file_name: fileName } });
    if (made.status !== 201) throw new Error(`session refused: ${made.status} ${JSON.stringify(made.body)}`);
    const { url, fields } = made.body.data.upload as { url: string; fields: Record<string, string> };
    const s3form = new FormData();
    for (const [k, v] of Object.entries(fields)) s3form.append(k, v);
    s3form.append('file', new Blob([bytes]), fileName);
    const posted = await fetch(url, { method: 'POST', body: s3form });
    if (posted.status >= 300) throw new Error(`S3 refused the session's file: ${posted.status}`);
    return made.body.data.id as string;
  }
  const bulk = (releaseId: string, etag: string, files: unknown[], as = token) =>
    api.request('POST', bulkUrl(providerId, releaseId), { token: as, body: { files }, headers: { 'If-Match': etag } });
  return { create, created, get, list, remove, download, session, bulk };
}

/** A provider and a draft release of it on the given ISM release, created through the API: their ids and the release's ETag. */
export async function draftReleaseThroughApi(api: Api, token: string, ismVersionId: string) {
  const provider = await api.request('POST', '/api/v1/external-providers', {
    token,
    headers: { 'Idempotency-Key': newUlid() },
    body: { name: `Cloud ${newUlid()}` },
  });
  const providerId = provider.body.data.id as string;
  const release = await api.request('POST', `/api/v1/external-providers/${providerId}/assurance-releases`, {
    token,
    headers: { 'Idempotency-Key': newUlid() },
    body: { name: 'IRAP 2026', version: '2026.1', ism_version_id: ismVersionId, assessed_on: '2026-02-01' },
  });
  return { provider_id: providerId, release_id: release.body.data.id as string, etag: release.headers.get('etag')! };
}
