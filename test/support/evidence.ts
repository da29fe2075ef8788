import type { Api } from './api.js';
import { arrangeControls, controlsUrl } from './controls.js';
import type { World } from './projects.js';

export const EXTERNAL = { kind: 'external_reference', title: 'Firewall change record', external_reference: 'https://tickets.example.test/CHG-1042' };
export const TEXT = { kind: 'text_reference', title: 'Interview note', description: 'The system owner confirmed quarterly access reviews.' };

/**
 * A populated project's control (sample-9001) and helpers over its evidence: the evidence URL,
 * create a reference, read an item, and read the control's evidence list with the control ETag.
 */
export async function arrangeEvidence(api: Api, world: World, options: Parameters<typeof arrangeControls>[2] = {}) {
  const a = await arrangeControls(api, world, options);
  const control = a.idOf('sample-9001');
  const evidenceUrl = (rest = '') => controlsUrl(a.p.id, `/${control}/evidence${rest}`);
  const reference = async (body: Record<string, unknown> = EXTERNAL, token = a.token) => api.request('POST', evidenceUrl('/references'), { token, body });
  const item = async (id: string, token = a.token) => {
    const res = await api.request('GET', evidenceUrl(`/${id}`), { token });
    return { res, body: res.body?.data, etag: res.headers.get('etag')! };
  };
  const items = async () => (await a.read('sample-9001')).body.evidence_items as { id: string; etag: string; status: string }[];
  return { ...a, control, evidenceUrl, reference, item, items };
}
