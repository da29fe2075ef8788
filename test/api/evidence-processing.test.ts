import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getObject } from '../../lib/files/storage.js';
import { cancelEvidenceProcessing } from '../../lib/operations/evidence/processing.js';
import { keys } from '../../lib/store/keys.js';
import { getOne } from '../../lib/store/read.js';
import { commit } from '../../lib/store/transact.js';
import type { Api } from '../support/api.js';
import { IMPLEMENTED } from '../support/controls.js';
import { EXTERNAL } from '../support/evidence.js';
import { arrangeUploads, pdfForm, sessionForm } from '../support/evidence-files.js';
import { form, PDF, png } from '../support/files.js';
import { operationContext } from '../support/operation-context.js';
import { startProjectWorld, type World } from '../support/projects.js';

let api: Api;
let world: World;

beforeAll(async () => ({ api, world } = await startProjectWorld()));
afterAll(() => api.stop());

const arrange = () => arrangeUploads(api, world);
const stored = (a: Awaited<ReturnType<typeof arrange>>, id: string) => getOne(keys.evidence(a.p.id, a.control, id));

describe('replaceEvidence', () => {
  it('answers 202 with a new pending item that keeps the metadata and names the item it replaces; the old item is gone at once', async () => {
    const a = await arrange();
    const old = await a.uploaded(pdfForm('v1.pdf', { title: 'Firewall review', description: 'First run.', evidence_type: 'Report' }));
    const res = await a.replace(old.id, form(png(30, 30), 'v2.png', 'image/png'), old.etag);
    expect(res.status).toBe(202);
    const next = res.body.data;
    expect(res.headers.get('location')).toBe(a.evidenceUrl(`/${next.id}`));
    expect(res.headers.get('etag')).toBe(next.etag);
    expect(next).toMatchObject({
      kind: 'upload',
      title: 'Firewall review',
      description: 'First run.',
      evidence_type: 'Report',
      status: 'pending',
      replaces: old.id,
      file: { file_name: 'v2.png' },
    });
    expect(next.id).not.toBe(old.id);
    expect((await a.item(old.id)).res.status).toBe(404);
    expect((await a.items()).map((e) => e.id)).toEqual([next.id]);
    await api.drainJobs();
    expect((await a.item(next.id)).body).toMatchObject({ status: 'ready', file: { content_type: 'image/png' } });
  });

  it('takes a new description when sent, and a blank one clears it', async () => {
    const a = await arrange();
    const old = await a.uploaded(pdfForm('a.pdf', { description: 'Old words.' }));
    const changed = await a.replace(old.id, pdfForm('b.pdf', { description: 'New words.' }), old.etag);
    expect(changed.body.data.description).toBe('New words.');
    await api.drainJobs();
    const current = (await a.item(changed.body.data.id)).body;
    const cleared = await a.replace(current.id, pdfForm('c.pdf', { description: '' }), current.etag);
    expect(cleared.body.data.description).toBeNull();
  });

  it('is 404 on a retry against the retired item (no receipt)', async () => {
    const a = await arrange();
    const old = await a.uploaded();
    expect((await a.replace(old.id, pdfForm('again.pdf'), old.etag)).status).toBe(202);
    expect((await a.replace(old.id, pdfForm('again.pdf'), old.etag)).status).toBe(404);
  });

  it('takes the file from an upload session', async () => {
    const a = await arrange();
    const old = await a.uploaded();
    const res = await a.replace(old.id, sessionForm(await a.session('large.pdf', PDF)), old.etag);
    expect(res.status).toBe(202);
    expect(res.body.data.file.file_name).toBe('large.pdf');
  });

  it('is 409 evidence_not_a_file for evidence other than an upload', async () => {
    const a = await arrange();
    const reference = (await a.reference(EXTERNAL)).body.data;
    const res = await a.replace(reference.id, pdfForm(), reference.etag);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('evidence_not_a_file');
  });

  it('is 409 evidence_processing while the file is still being processed, whatever the If-Match', async () => {
    const a = await arrange();
    const pending = (await a.upload(pdfForm())).body.data;
    for (const etag of [pending.etag, '"9-00000000000000000000"']) {
      const res = await a.replace(pending.id, pdfForm('next.pdf'), etag);
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('evidence_processing');
    }
    expect((await a.items()).map((e) => e.id)).toEqual([pending.id]);
  });

  it('needs If-Match (428) naming the current item ETag (412)', async () => {
    const a = await arrange();
    const old = await a.uploaded();
    expect((await a.replace(old.id, pdfForm())).status).toBe(428);
    expect((await a.replace(old.id, pdfForm(), (await a.read('sample-9001')).etag)).status).toBe(412);
    expect((await a.items()).map((e) => e.id)).toEqual([old.id]);
  });

  it('needs the control in editing (403)', async () => {
    const a = await arrange();
    const old = await a.uploaded();
    await a.patch('sample-9001', IMPLEMENTED);
    await a.transition('sample-9001', { transition: 'editing_to_ready_for_assessment' });
    const current = (await a.item(old.id)).body;
    expect((await a.replace(current.id, pdfForm(), current.etag)).status).toBe(403);
  });
});

describe('cancelEvidenceProcessing', () => {
  it('stops the scan (200 {id, cancelled: true}): the item stays as a failed upload, and a scan that runs later changes nothing', async () => {
    const a = await arrange();
    const pending = (await a.upload(pdfForm())).body.data;
    const res = await a.cancel(pending.id, pending.etag);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: pending.id, cancelled: true });
    const after = await a.item(pending.id);
    expect(after.body).toMatchObject({ status: 'error', error: 'cancelled', processing: false, content_representation: 'unavailable', links: {} });
    expect(after.etag).not.toBe(pending.etag);
    await api.drainJobs();
    expect((await a.item(pending.id)).body).toEqual(after.body);
    const item = await stored(a, pending.id);
    expect(await getOne(keys.upload(String(item!.upload_id)))).toMatchObject({ status: 'error', error_code: 'cancelled' });
    expect(await getObject(String(item!.s3_key))).toBeUndefined();
    expect(await getObject(`files/${item!.upload_id}`)).toBeUndefined();
  });

  it('leaves the item to be replaced or deleted', async () => {
    const a = await arrange();
    const pending = (await a.upload(pdfForm())).body.data;
    await a.cancel(pending.id, pending.etag);
    const cancelled = (await a.item(pending.id)).body;
    const res = await a.replace(cancelled.id, pdfForm('right.pdf'), cancelled.etag);
    expect(res.status).toBe(202);
    expect(res.body.data.replaces).toBe(pending.id);
  });

  it('is 409 evidence_not_processing once the scan finished first, even with the ETag read while pending', async () => {
    const a = await arrange();
    const pending = (await a.upload(pdfForm())).body.data;
    await api.drainJobs();
    const res = await a.cancel(pending.id, pending.etag);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('evidence_not_processing');
    expect((await a.item(pending.id)).body.status).toBe('ready');
  });

  it('loses to a scan that settles the file between its read and its write (409), leaving the item ready', async () => {
    const a = await arrange();
    const pending = (await a.upload(pdfForm())).body.data;
    const params = { project: a.p.id, control: a.control, evidence: pending.id };
    const ctx = await operationContext(cancelEvidenceProcessing, params, a.token, pending.etag);
    const { writes } = await cancelEvidenceProcessing.handle(ctx, { params, query: {}, body: {} });
    await api.drainJobs();
    await expect(commit(writes!)).rejects.toMatchObject({ status: 409, code: 'evidence_not_processing' });
    expect((await a.item(pending.id)).body.status).toBe('ready');
  });

  it('is 409 evidence_not_processing for evidence that is not an upload, and for a failed upload', async () => {
    const a = await arrange();
    const reference = (await a.reference(EXTERNAL)).body.data;
    expect((await a.cancel(reference.id, reference.etag)).body.code).toBe('evidence_not_processing');
    const failed = await a.uploaded(form(Buffer.from('MZ\u0000binary'), 'x.exe', 'application/octet-stream'));
    const res = await a.cancel(failed.id, failed.etag);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('evidence_not_processing');
  });

  it('needs If-Match (428, 412) and the empty object (422)', async () => {
    const a = await arrange();
    const pending = (await a.upload(pdfForm())).body.data;
    expect((await a.cancel(pending.id)).status).toBe(428);
    expect((await a.cancel(pending.id, '"9-00000000000000000000"')).status).toBe(412);
    expect((await a.cancel(pending.id, pending.etag, { reason: 'wrong file' })).status).toBe(422);
    expect((await a.item(pending.id)).body.status).toBe('pending');
  });

  it('needs edit-control-implementation (403)', async () => {
    const a = await arrange();
    const pending = (await a.upload(pdfForm())).body.data;
    const viewer = await world.projectToken(a.p.id, ['view-controls']);
    const res = await api.request('POST', a.evidenceUrl(`/${pending.id}/cancel-processing`), {
      token: viewer,
      body: {},
      headers: { 'If-Match': pending.etag },
    });
    expect(res.status).toBe(403);
  });
});

describe('deleteEvidence of a file still processing', () => {
  it('stops its scan: the upload settles as cancelled, and neither its quarantined nor a released copy remains', async () => {
    const a = await arrange();
    const pending = (await a.upload(pdfForm())).body.data;
    const item = await stored(a, pending.id);
    const res = await api.request('DELETE', a.evidenceUrl(`/${pending.id}`), { token: a.token, headers: { 'If-Match': pending.etag } });
    expect(res.status).toBe(200);
    await api.drainJobs();
    expect(await getOne(keys.upload(String(item!.upload_id)))).toMatchObject({ status: 'error', error_code: 'cancelled' });
    expect(await getObject(String(item!.s3_key))).toBeUndefined();
    expect(await getObject(`files/${item!.upload_id}`)).toBeUndefined();
  });
});
