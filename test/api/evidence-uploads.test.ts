import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { MAX_EVIDENCE_PER_CONTROL } from '../../lib/domain/evidence.js';
import { revokeAccess } from '../../lib/store/identity.js';
import { keys } from '../../lib/store/keys.js';
import { getOne } from '../../lib/store/read.js';
import type { Api } from '../support/api.js';
import { auditRecords } from '../support/audit.js';
import { controlsUrl, IMPLEMENTED } from '../support/controls.js';
import { arrangeUploads, pdfForm, sessionForm } from '../support/evidence-files.js';
import { EICAR, form, PDF, png } from '../support/files.js';
import { setupWorld, startProjectWorld, type World } from '../support/projects.js';
import type { Release } from '../../lib/catalogue/store.js';

let api: Api;
let world: World;
let release: Release;

beforeAll(async () => ({ api, world, release } = await startProjectWorld()));
afterAll(() => api.stop());

const arrange = (options?: Parameters<typeof arrangeUploads>[2]) => arrangeUploads(api, world, options);
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('uploadEvidence', () => {
  it('creates a pending upload item (201) with its file facts, titled by the file name, and its own ETag and Location', async () => {
    const a = await arrange();
    const res = await a.upload(pdfForm('firewall-review.pdf', { evidence_type: 'Configuration export', collected_on: '2026-10-01' }));
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(a.evidenceUrl(`/${res.body.data.id}`));
    expect(res.headers.get('etag')).toBe(res.body.data.etag);
    expect(res.body.data).toMatchObject({
      kind: 'upload',
      title: 'firewall-review.pdf',
      evidence_type: 'Configuration export',
      collected_on: '2026-10-01',
      description: null,
      status: 'pending',
      processing: true,
      error: null,
      file: { file_name: 'firewall-review.pdf', size: PDF.length, content_type: null, sha256: sha256(PDF) },
      content_representation: 'unavailable',
      links: {},
      replaces: null,
      created_by: world.op.userId,
    });
    expect(await a.items()).toEqual([res.body.data]);
  });

  it('takes the title and other metadata from the form', async () => {
    const a = await arrange();
    const res = await a.upload(pdfForm('scan.pdf', { title: 'Firewall review', description: 'Quarterly.', classification: 'OS' }));
    expect(res.body.data).toMatchObject({ title: 'Firewall review', description: 'Quarterly.', classification: 'OS' });
  });

  it('becomes ready with its detected type when the scan passes, moving the item ETag and the control ETag', async () => {
    const a = await arrange();
    const created = await a.upload(pdfForm());
    const before = await a.read('sample-9001');
    await api.drainJobs();
    const { body, etag } = await a.item(created.body.data.id);
    expect(body).toMatchObject({
      status: 'ready',
      processing: false,
      file: { content_type: 'application/pdf' },
      content_representation: 'content_and_download',
      links: { content: a.evidenceUrl(`/${body.id}/content`), download: a.evidenceUrl(`/${body.id}/download`) },
    });
    expect(etag).not.toBe(created.headers.get('etag'));
    const after = await a.read('sample-9001');
    expect(after.etag).not.toBe(before.etag);
    expect(after.body.evidence_items).toEqual([body]);
  });

  it('becomes error with a safe reason when the file is not a type evidence takes', async () => {
    const a = await arrange();
    const item = await a.uploaded(form(Buffer.from('MZ\u0000\u0000binary'), 'tool.exe', 'application/octet-stream'));
    expect(item).toMatchObject({ status: 'error', error: 'unsupported_type', processing: false, content_representation: 'unavailable', links: {} });
  });

  it('reuses a released file of the same bytes, name and uploader in the project: ready at once', async () => {
    const a = await arrange();
    const first = await a.uploaded(pdfForm('same.pdf'));
    const other = await a.upload(pdfForm('same.pdf'), a.token);
    expect(other.body.data).toMatchObject({ status: 'ready', file: { content_type: 'application/pdf', sha256: first.file.sha256 } });
    const upload = await getOne(keys.evidence(a.p.id, a.control, other.body.data.id));
    expect((await getOne(keys.upload(String(upload!.upload_id))))!.reused_from).toEqual(expect.any(String));
    expect((await a.upload(pdfForm('renamed.pdf'))).body.data.status).toBe('pending');
  });

  it("condemns the EICAR test file (local scanner) in each organisation's project it was uploaded to", async () => {
    const a = await arrange();
    const b = await arrangeUploads(api, await setupWorld(api, release));
    const ours = (await a.upload(form(EICAR, 'eicar.txt', 'text/plain'))).body.data;
    const theirs = (await b.upload(form(EICAR, 'readme.txt', 'text/plain'))).body.data;
    await api.drainJobs();
    expect((await a.item(ours.id)).body).toMatchObject({ status: 'error', error: 'malware_detected' });
    expect((await b.item(theirs.id)).body).toMatchObject({ status: 'error', error: 'malware_detected' });
  });

  it('stops a queued scan whose uploader lost access to the project before it ran', async () => {
    const a = await arrange();
    const created = await a.upload(pdfForm());
    await revokeAccess(world.op.userId, { kind: 'project', id: a.p.id });
    await api.drainJobs();
    const stored = await getOne(keys.evidence(a.p.id, a.control, created.body.data.id));
    expect(stored).toMatchObject({ file_status: 'error', error_code: 'authorisation_lost' });
  });

  it('refuses a form with neither a file nor an upload session, unknown fields and bad metadata (422), creating nothing', async () => {
    const a = await arrange();
    const empty = new FormData();
    empty.append('title', 'No file');
    expect((await a.upload(empty)).status).toBe(422);
    const unknown = await a.upload(pdfForm('a.pdf', { status: 'ready' }));
    expect(unknown.status).toBe(422);
    const dates = await a.upload(pdfForm('a.pdf', { collected_on: '2026-10-01', review_due: '2026-09-01' }));
    expect(dates.status).toBe(422);
    expect(dates.body.errors[0]).toMatchObject({ pointer: '/review_due', code: 'review_due_before_collected_on' });
    expect((await a.upload(pdfForm('a.pdf', { classification: 'SECRET' }))).status).toBe(422);
    expect(await a.items()).toEqual([]);
  });

  it('refuses an empty inline file (422 empty_file at /file) before storing it, creating nothing', async () => {
    const a = await arrange();
    const res = await a.upload(pdfForm('empty.pdf', {}, Buffer.alloc(0)));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ pointer: '/file', code: 'empty_file', detail: expect.any(String) }]);
    expect(await a.items()).toEqual([]);
  });

  it('refuses an inline file above 4 MiB (413), pointing at upload sessions', async () => {
    const a = await arrange();
    const res = await a.upload(pdfForm('big.pdf', {}, Buffer.concat([PDF, Buffer.alloc(4 * 1024 * 1024)])));
    expect(res.status).toBe(413);
    expect(res.body.detail).toContain('upload session');
  });

  it('takes multipart only (415)', async () => {
    const a = await arrange();
    const res = await api.request('POST', a.evidenceUrl('/uploads'), { token: a.token, body: { title: 'JSON' } });
    expect(res.status).toBe(415);
  });

  it('refuses a control outside editing and a credential without edit-control-implementation (403)', async () => {
    const a = await arrange();
    const viewer = await world.projectToken(a.p.id, ['view-controls']);
    expect((await a.upload(pdfForm(), viewer)).status).toBe(403);
    await a.patch('sample-9001', IMPLEMENTED);
    await a.transition('sample-9001', { transition: 'editing_to_ready_for_assessment' });
    const res = await a.upload(pdfForm());
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('workflow_state_forbids_edit');
  });

  it(`refuses the upload past ${MAX_EVIDENCE_PER_CONTROL} items (422 evidence_limit_reached) before storing the file`, async () => {
    const a = await arrange();
    await a.referencesWritten(MAX_EVIDENCE_PER_CONTROL);
    const res = await a.upload(pdfForm());
    expect(res.status).toBe(422);
    expect(res.body.errors[0].code).toBe('evidence_limit_reached');
  });

  it('is 404 for a control of another project', async () => {
    const a = await arrange();
    const b = await arrange();
    const res = await api.request('POST', controlsUrl(a.p.id, `/${b.control}/evidence/uploads`), { token: a.token, form: pdfForm() });
    expect(res.status).toBe(404);
  });

  it('writes an audit record naming the item and its upload', async () => {
    const a = await arrange();
    const created = await a.upload(pdfForm());
    const records = (await auditRecords(world.op.organisationId)).filter(
      (r) => r.kind === 'UPLOAD_EVIDENCE' && (r.target as { evidence: string }).evidence === created.body.data.id,
    );
    expect(records).toHaveLength(1);
    expect(records[0]!.target).toMatchObject({ upload: expect.any(String) });
  });
});

describe('createEvidenceUploadSession', () => {
  it('takes the file from an upload session that the upload names, titled by the session file name, once', async () => {
    const a = await arrange();
    const bytes = png(900, 900, 5);
    const id = await a.session('console.png', bytes);
    const res = await a.upload(sessionForm(id, { evidence_type: 'Screenshot' }));
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ title: 'console.png', evidence_type: 'Screenshot', status: 'pending', file: { size: bytes.length } });
    await api.drainJobs();
    expect((await a.item(res.body.data.id)).body).toMatchObject({ status: 'ready', file: { content_type: 'image/png' } });
    const again = await a.upload(sessionForm(id));
    expect(again.status).toBe(422);
    expect(again.body.errors[0].code).toBe('invalid_upload_session');
  });

  it('refuses an upload session holding an empty file (422 empty_file at /upload_session), creating nothing', async () => {
    const a = await arrange();
    const id = await a.session('empty.pdf', Buffer.alloc(0));
    const res = await a.upload(sessionForm(id));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ pointer: '/upload_session', code: 'empty_file', detail: expect.any(String) }]);
    expect(await a.items()).toEqual([]);
  });

  it("refuses another project's session and a form with both a file and a session (422)", async () => {
    const a = await arrange();
    const b = await arrange();
    const theirs = await b.session('other.pdf', PDF);
    expect((await a.upload(sessionForm(theirs))).body.errors?.[0]?.code).toBe('invalid_upload_session');
    const both = pdfForm('a.pdf', { upload_session: await a.session('mine.pdf', PDF) });
    expect((await a.upload(both)).status).toBe(422);
  });

  it('bounds the presigned POST to the evidence limit of 20 MiB and needs an editable control (403)', async () => {
    const a = await arrange();
    const created = await api.request('POST', a.evidenceUrl('/upload-sessions'), { token: a.token, body: { file_name: 'x.pdf' } });
    expect(created.status).toBe(201);
    expect(created.body.data.max_bytes).toBe(20 * 1024 * 1024);
    await a.patch('sample-9001', IMPLEMENTED);
    await a.transition('sample-9001', { transition: 'editing_to_ready_for_assessment' });
    expect((await api.request('POST', a.evidenceUrl('/upload-sessions'), { token: a.token, body: { file_name: 'x.pdf' } })).status).toBe(403);
  });
});
