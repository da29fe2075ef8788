import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_EVIDENCE_PER_CONTROL } from '../../lib/domain/evidence.js';
import type { Api } from '../support/api.js';
import { auditRecords } from '../support/audit.js';
import { IMPLEMENTED, controlsUrl, WITHOUT_ASSESSMENT } from '../support/controls.js';
import { arrangeEvidence, EXTERNAL, TEXT } from '../support/evidence.js';
import { startProjectWorld, type World } from '../support/projects.js';

let api: Api;
let world: World;

beforeAll(async () => ({ api, world } = await startProjectWorld()));
afterAll(() => api.stop());

const arrange = (options?: Parameters<typeof arrangeEvidence>[2]) => arrangeEvidence(api, world, options);

describe('createEvidenceReference', () => {
  it('records an external reference as a ready item with its own ETag and Location', async () => {
    const a = await arrange();
    const res = await a.reference();
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(a.evidenceUrl(`/${res.body.data.id}`));
    expect(res.headers.get('etag')).toBe(res.body.data.etag);
    expect(res.body.data).toMatchObject({
      kind: 'external_reference',
      title: EXTERNAL.title,
      external_reference: EXTERNAL.external_reference,
      status: 'ready',
      processing: false,
      content_representation: 'external_access',
      links: {},
      file: null,
      source: null,
      created_by: world.op.userId,
    });
  });

  it('records a text reference inline, without content or download links', async () => {
    const a = await arrange();
    const res = await a.reference(TEXT);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ kind: 'text_reference', description: TEXT.description, content_representation: 'inline', links: {} });
  });

  it('lists the item on the control without moving the control version, and moves the control ETag', async () => {
    const a = await arrange();
    const before = await a.read('sample-9001');
    const created = await a.reference();
    const after = await a.read('sample-9001');
    expect(after.body.evidence_items).toEqual([created.body.data]);
    expect(after.etag).not.toBe(before.etag);
    expect(after.etag.split('-')[0]).toBe(before.etag.split('-')[0]);
  });

  it('makes an implementation edit with the ETag read before the evidence changed stale (412)', async () => {
    const a = await arrange();
    const { etag } = await a.read('sample-9001');
    await a.reference();
    const res = await api.request('PATCH', controlsUrl(a.p.id, `/${a.control}/implementation`), {
      token: a.token,
      headers: { 'If-Match': etag },
      body: IMPLEMENTED,
    });
    expect(res.status).toBe(412);
  });

  it('needs the external reference of an external reference and the text of a text reference (422)', async () => {
    const a = await arrange();
    const noUrl = await a.reference({ kind: 'external_reference', title: 'No target' });
    expect(noUrl.status).toBe(422);
    expect(noUrl.body.errors.map((e: { pointer: string }) => e.pointer)).toContain('/external_reference');
    const noText = await a.reference({ kind: 'text_reference', title: 'No text', description: '   ' });
    expect(noText.status).toBe(422);
    expect(noText.body.errors.map((e: { pointer: string }) => e.pointer)).toContain('/description');
  });

  it('refuses a reference with a scheme other than http or https (422)', async () => {
    const a = await arrange();
    const res = await a.reference({ ...EXTERNAL, external_reference: 'javascript:alert(1)' });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].pointer).toBe('/external_reference');
  });

  it('refuses server-owned fields and unknown keys (422) and creates nothing', async () => {
    const a = await arrange();
    for (const extra of [{ status: 'ready' }, { created_by: 'someone' }, { sha256: 'a'.repeat(64) }]) {
      const res = await a.reference({ ...EXTERNAL, ...extra });
      expect(res.status).toBe(422);
    }
    const proto = await api.request('POST', a.evidenceUrl('/references'), {
      token: a.token,
      rawBody: '{"kind":"external_reference","title":"T","external_reference":"https://x.test","__proto__":{"status":"ready"}}',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(proto.status).toBe(422);
    expect(await a.items()).toEqual([]);
  });

  it('refuses a control outside the editing state (403)', async () => {
    const a = await arrange();
    await a.patch('sample-9001', IMPLEMENTED);
    await a.transition('sample-9001', { transition: 'editing_to_ready_for_assessment' });
    const res = await a.reference();
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('workflow_state_forbids_edit');
  });

  it('needs edit-control-implementation and a mutation-enabled credential (403)', async () => {
    const a = await arrange();
    const viewer = await world.projectToken(a.p.id, ['view-controls']);
    expect((await a.reference(EXTERNAL, viewer)).status).toBe(403);
  });

  it(`holds at most ${MAX_EVIDENCE_PER_CONTROL} items per control (422 evidence_limit_reached)`, async () => {
    const a = await arrange();
    for (let i = 0; i < MAX_EVIDENCE_PER_CONTROL; i++) expect((await a.reference({ ...TEXT, title: `Note ${i}` })).status).toBe(201);
    const over = await a.reference(TEXT);
    expect(over.status).toBe(422);
    expect(over.body.errors[0].code).toBe('evidence_limit_reached');
  });

  it('writes an audit record naming the item and its kind', async () => {
    const a = await arrange();
    const created = await a.reference();
    const records = (await auditRecords(world.op.organisationId)).filter(
      (r) => r.kind === 'CREATE_EVIDENCE_REFERENCE' && (r.target as { evidence: string }).evidence === created.body.data.id,
    );
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ status: 201, details: { kind: 'external_reference' } });
  });
});

describe('getEvidence', () => {
  it('answers the item with its item ETag', async () => {
    const a = await arrange();
    const created = await a.reference();
    const { res, body, etag } = await a.item(created.body.data.id);
    expect(res.status).toBe(200);
    expect(body).toEqual(created.body.data);
    expect(etag).toBe(created.headers.get('etag'));
  });

  it('is 404 for an unknown item and for an item of another control', async () => {
    const a = await arrange();
    const created = await a.reference();
    expect((await a.item('01JZZZZZZZZZZZZZZZZZZZZZZZ')).res.status).toBe(404);
    const other = await api.request('GET', controlsUrl(a.p.id, `/${a.idOf('sample-9002')}/evidence/${created.body.data.id}`), { token: a.token });
    expect(other.status).toBe(404);
  });

  it('is readable with view-controls alone', async () => {
    const a = await arrange();
    const created = await a.reference();
    const viewer = await world.projectToken(a.p.id, ['view-controls']);
    expect((await a.item(created.body.data.id, viewer)).res.status).toBe(200);
  });
});

describe('updateEvidence', () => {
  const patch = (a: Awaited<ReturnType<typeof arrange>>, id: string, body: unknown, ifMatch?: string) =>
    api.request('PATCH', a.evidenceUrl(`/${id}`), { token: a.token, body, headers: ifMatch ? { 'If-Match': ifMatch } : {} });

  it('merges metadata and answers a new item ETag', async () => {
    const a = await arrange();
    const created = await a.reference();
    const res = await patch(a, created.body.data.id, { title: 'Renamed', collected_on: '2026-11-01', classification: 'OS' }, created.body.data.etag);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      title: 'Renamed',
      collected_on: '2026-11-01',
      classification: 'OS',
      external_reference: EXTERNAL.external_reference,
    });
    expect(res.headers.get('etag')).not.toBe(created.body.data.etag);
    const cleared = await patch(a, created.body.data.id, { classification: null }, res.headers.get('etag')!);
    expect(cleared.body.data.classification).toBeNull();
  });

  it('needs If-Match (428) naming the current item ETag (412), not the control ETag', async () => {
    const a = await arrange();
    const created = await a.reference();
    const id = created.body.data.id;
    expect((await patch(a, id, { title: 'X' })).status).toBe(428);
    expect((await patch(a, id, { title: 'X' }, (await a.read('sample-9001')).etag)).status).toBe(412);
    expect((await patch(a, id, { title: 'X' }, created.body.data.etag)).status).toBe(200);
    expect((await patch(a, id, { title: 'Y' }, created.body.data.etag)).status).toBe(412);
  });

  it('refuses an empty patch, a null title, and server-owned fields (422)', async () => {
    const a = await arrange();
    const created = await a.reference();
    const id = created.body.data.id;
    for (const body of [{}, { title: null }, { status: 'ready' }, { kind: 'text_reference' }, { source: null }, { created_by: 'x' }, { processing: false }]) {
      const res = await patch(a, id, body, created.body.data.etag);
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    expect((await a.item(id)).etag).toBe(created.body.data.etag);
  });

  it('checks review_due against collected_on as they stand after the patch (422)', async () => {
    const a = await arrange();
    const created = await a.reference({ ...EXTERNAL, collected_on: '2026-10-01' });
    const res = await patch(a, created.body.data.id, { review_due: '2026-09-30' }, created.body.data.etag);
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ pointer: '/review_due', code: 'review_due_before_collected_on' });
  });

  it('refuses to clear the external reference of an external reference (422)', async () => {
    const a = await arrange();
    const created = await a.reference();
    const res = await patch(a, created.body.data.id, { external_reference: null }, created.body.data.etag);
    expect(res.status).toBe(422);
  });

  it('needs the control in editing (403)', async () => {
    const a = await arrange();
    const created = await a.reference();
    await a.patch('sample-9001', IMPLEMENTED);
    await a.transition('sample-9001', { transition: 'editing_to_ready_for_assessment' });
    const res = await patch(a, created.body.data.id, { title: 'Late' }, created.body.data.etag);
    expect(res.status).toBe(403);
  });
});

describe('deleteEvidence', () => {
  it('deletes the item (200 {id, deleted: true}); it is 404 afterwards and leaves the list', async () => {
    const a = await arrange();
    const created = await a.reference();
    const id = created.body.data.id;
    const res = await api.request('DELETE', a.evidenceUrl(`/${id}`), { token: a.token, headers: { 'If-Match': created.body.data.etag } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id, deleted: true });
    expect((await a.item(id)).res.status).toBe(404);
    expect(await a.items()).toEqual([]);
  });

  it('needs If-Match (428, 412) and takes no body (422)', async () => {
    const a = await arrange();
    const created = await a.reference();
    const url = a.evidenceUrl(`/${created.body.data.id}`);
    expect((await api.request('DELETE', url, { token: a.token })).status).toBe(428);
    expect((await api.request('DELETE', url, { token: a.token, headers: { 'If-Match': '"9-00000000000000000000"' } })).status).toBe(412);
    const withBody = await api.request('DELETE', url, { token: a.token, headers: { 'If-Match': created.body.data.etag }, body: {} });
    expect(withBody.status).toBe(422);
    expect((await a.item(created.body.data.id)).res.status).toBe(200);
  });

  it('frees a place under the per-control limit', async () => {
    const a = await arrange({ abilities: WITHOUT_ASSESSMENT });
    const created = await a.reference();
    await api.request('DELETE', a.evidenceUrl(`/${created.body.data.id}`), { token: a.token, headers: { 'If-Match': created.body.data.etag } });
    expect((await a.reference()).status).toBe(201);
    expect(await a.items()).toHaveLength(1);
  });
});
