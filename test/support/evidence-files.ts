import type { Api } from './api.js';
import { arrangeEvidence } from './evidence.js';
import { form, PDF } from './files.js';
import type { World } from './projects.js';

/** A small PDF as a form, with metadata fields beside it. */
export const pdfForm = (fileName = 'firewall-review.pdf', fields: Record<string, string> = {}, bytes = PDF) => form(bytes, fileName, 'application/pdf', fields);

/** A form naming an upload session instead of carrying the file, with fields beside it. */
export function sessionForm(sessionId: string, fields: Record<string, string> = {}): FormData {
  const data = new FormData();
  for (const [k, v] of Object.entries(fields)) data.append(k, v);
  data.append('upload_session', sessionId);
  return data;
}

/**
 * The evidence arrangement (a populated project's control sample-9001) with helpers over uploaded
 * evidence: upload, replace, cancel, read the content and download, and upload sessions.
 */
export async function arrangeUploads(api: Api, world: World, options: Parameters<typeof arrangeEvidence>[2] = {}) {
  const a = await arrangeEvidence(api, world, options);
  const upload = (data: FormData, token = a.token) => api.request('POST', a.evidenceUrl('/uploads'), { token, form: data });
  const replace = (id: string, data: FormData, etag?: string) =>
    api.request('POST', a.evidenceUrl(`/${id}/replacement`), { token: a.token, form: data, headers: etag ? { 'If-Match': etag } : {} });
  const cancel = (id: string, etag?: string, body: unknown = {}) =>
    api.request('POST', a.evidenceUrl(`/${id}/cancel-processing`), { token: a.token, body, headers: etag ? { 'If-Match': etag } : {} });
  const content = (id: string, token = a.token) => api.request('GET', a.evidenceUrl(`/${id}/content`), { token });
  const download = (id: string, token = a.token) => api.request('GET', a.evidenceUrl(`/${id}/download`), { token });
  /** Uploads a file and runs its scan: the item as it then is. */
  async function uploaded(data: FormData = pdfForm()) {
    const res = await upload(data);
    if (res.status !== 201) throw new Error(`upload refused: ${res.status} ${JSON.stringify(res.body)}`);
    await api.drainJobs();
    return (await a.item(res.body.data.id)).body;
  }
  /** An upload session of this control with the file posted to its presigned URL: its id. */
  async function session(fileName: string, bytes: Buffer, token = a.token): Promise<string> {
    const created = await api.request('POST', a.evidenceUrl('/upload-sessions'), { token, body: { file_name: fileName } });
    if (created.status !== 201) throw new Error(`session refused: ${created.status} ${JSON.stringify(created.body)}`);
    const { url, fields } = created.body.data.upload as { url: string; fields: Record<string, string> };
    const s3form = new FormData();
    for (const [k, v] of Object.entries(fields)) s3form.append(k, v);
    s3form.append('file', new Blob([bytes]), fileName);
    const posted = await fetch(url, { method: 'POST', body: s3form });
    if (posted.status >= 300) throw new Error(`S3 refused the session's file: ${posted.status}`);
    return created.body.data.id as string;
  }
  return { ...a, upload, replace, cancel, content, download, uploaded, session };
}
