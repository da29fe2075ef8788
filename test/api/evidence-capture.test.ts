import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headMoves } from '../../lib/store/evidence.js';
import { commit } from '../../lib/store/transact.js';
import type { Api } from '../support/api.js';
import { IMPLEMENTED, WITHOUT_ASSESSMENT } from '../support/controls.js';
import { arrangeEvidence, EXTERNAL, TEXT } from '../support/evidence.js';
import { startProjectWorld, type World } from '../support/projects.js';

let api: Api;
let world: World;

beforeAll(async () => ({ api, world } = await startProjectWorld()));
afterAll(() => api.stop());

/** A control with a text reference and an external reference, brought to assessing with a complete assessment. */
async function assessing() {
  const a = await arrangeEvidence(api, world);
  const text = (await a.reference(TEXT)).body.data;
  const external = (await a.reference(EXTERNAL)).body.data;
  await a.patch('sample-9001', IMPLEMENTED);
  await a.transition('sample-9001', { transition: 'editing_to_ready_for_assessment' });
  await a.transition('sample-9001', { transition: 'ready_for_assessment_to_assessing' });
  await a.patch('sample-9001', { overall_assessed_outcome: 'effective', overall_assessed_rationale: 'Seen in the records.' }, undefined, 'assessment');
  const assess = (body: Record<string, unknown> = {}, etag?: string) =>
    api.request('POST', a.evidenceUrl('').replace(/\/evidence$/, '/transitions'), {
      token: a.token,
      headers: { 'If-Match': etag ?? '' },
      body: { transition: 'assessing_to_assessed', ...body },
    });
  return { ...a, text, external, assess };
}

describe('evidence capture on assessing_to_assessed', () => {
  it('pins the text reference, warns about the external reference, and proceeds once acknowledged', async () => {
    const a = await assessing();
    const { etag } = await a.read('sample-9001');
    const first = await a.assess({}, etag);
    expect(first.status).toBe(409);
    expect(first.body.evidence_warnings).toEqual([{ evidence_id: a.external.id, reason: 'unverified' }]);
    const retry = await a.assess({ acknowledge_evidence_warnings: true }, etag);
    expect(retry.status).toBe(200);
    expect(retry.body.data.evidence_snapshot).toMatchObject({
      versions: [{ evidence_id: a.text.id, version: 1, sha256: null }],
      acknowledged_warnings: [a.external.id],
    });
  });

  it('refuses the acknowledged retry when the evidence moved after the warning (412)', async () => {
    const a = await assessing();
    const { etag } = await a.read('sample-9001');
    expect((await a.assess({}, etag)).status).toBe(409);
    // As the scan pipeline moves it when a file's status changes.
    await commit([headMoves(a.p.id, a.control, 0)]);
    const stale = await a.assess({ acknowledge_evidence_warnings: true }, etag);
    expect(stale.status).toBe(412);
  });

  it('keeps the pinned version readable after the live item is deleted', async () => {
    const a = await assessing();
    const { etag } = await a.read('sample-9001');
    expect((await a.assess({ acknowledge_evidence_warnings: true }, etag)).status).toBe(200);
    await a.transition('sample-9001', { transition: 'assessed_to_editing' });
    const live = await a.item(a.text.id);
    expect((await api.request('DELETE', a.evidenceUrl(`/${a.text.id}`), { token: a.token, headers: { 'If-Match': live.etag } })).status).toBe(200);
    const pinned = await api.request('GET', a.evidenceUrl(`/${a.text.id}/versions/1`), { token: a.token });
    expect(pinned.status).toBe(200);
    expect(pinned.body.data).toMatchObject({ id: a.text.id, version: 1, kind: 'text_reference', description: TEXT.description });
  });

  it('answers 404 for a version no capture pinned, and needs the assessment view (403)', async () => {
    const a = await assessing();
    const { etag } = await a.read('sample-9001');
    await a.assess({ acknowledge_evidence_warnings: true }, etag);
    expect((await api.request('GET', a.evidenceUrl(`/${a.external.id}/versions/1`), { token: a.token })).status).toBe(404);
    expect((await api.request('GET', a.evidenceUrl(`/${a.text.id}/versions/2`), { token: a.token })).status).toBe(404);
    const withoutAssessment = await world.projectToken(a.p.id, WITHOUT_ASSESSMENT);
    expect((await api.request('GET', a.evidenceUrl(`/${a.text.id}/versions/1`), { token: withoutAssessment })).status).toBe(403);
    expect((await api.request('GET', a.evidenceUrl(`/${a.text.id}/versions/0x1`), { token: a.token })).status).toBe(422);
    const notAFile = await api.request('GET', a.evidenceUrl(`/${a.text.id}/versions/1/download`), { token: a.token });
    expect(notAFile.status).toBe(409);
    expect(notAFile.body.code).toBe('unsupported_content_representation');
  });
});
