import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import { applyVerdict } from '../../lib/files/scan.js';
import { keys } from '../../lib/store/keys.js';
import { getOne } from '../../lib/store/read.js';
import { revokeAccess } from '../../lib/store/identity.js';
import { fixtures, startApi, type Api } from '../support/api.js';
import { EICAR, form, png } from '../support/files.js';

let api: Api;

beforeAll(async () => {
  api = await startApi({}, { jobs: 'manual' });
});
afterAll(() => api.stop());

type Operator = Awaited<ReturnType<typeof fixtures.operator>>;
const logo = (op: Operator) => `/api/v1/organisations/${op.organisationId}/logo`;
const read = (op: Operator) => api.request('GET', logo(op), { token: op.org });
async function upload(op: Operator, data: FormData, options: { etag?: string | null; key?: string } = {}) {
  const etag = options.etag === undefined ? (await read(op)).headers.get('etag') : options.etag;
  const headers: Record<string, string> = { 'Idempotency-Key': options.key ?? newUlid() };
  if (etag) headers['If-Match'] = etag;
  return api.request('POST', logo(op), { token: op.org, form: data, headers });
}

describe('organisation logo', () => {
  it('has no logo at first, with an ETag to upload against', async () => {
    const res = await read(await fixtures.operator());
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: null, file_url: null });
    expect(res.headers.get('etag')).toMatch(/^"0-/);
  });

  it('accepts a PNG into quarantine (201), then the scan makes it ready and downloadable', async () => {
    const op = await fixtures.operator();
    const image = png(64, 32);
    const res = await upload(op, form(image, 'logo.png'));
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ status: 'quarantine', file_name: 'logo.png', size: image.length, file_url: null });
    expect(res.headers.get('location')).toBe(logo(op));
    expect((await api.request('GET', `${logo(op)}/file`, { token: op.org })).status).toBe(404);

    await api.drainJobs();
    const ready = await read(op);
    expect(ready.body.data).toMatchObject({ status: 'ready', content_type: 'image/png', width: 64, height: 32, file_url: `${logo(op)}/file` });
    expect(ready.headers.get('etag')).not.toBe(res.headers.get('etag'));
    const file = await api.request('GET', `${logo(op)}/file`, { token: op.org });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    expect(file.headers.get('cache-control')).toBe('private, no-store');
    expect(file.bytes.equals(image)).toBe(true);
  });

  it('turns a file that is not an image into error, whatever its declared type', async () => {
    const op = await fixtures.operator();
    await upload(op, form(Buffer.from('%PDF-1.7 not a logo'), 'logo.png'));
    await api.drainJobs();
    expect((await read(op)).body.data).toMatchObject({ status: 'error', error_code: 'unsupported_type' });
    expect((await api.request('GET', `${logo(op)}/file`, { token: op.org })).status).toBe(404);
  });

  it('refuses an image outside the allowed dimensions', async () => {
    const op = await fixtures.operator();
    await upload(op, form(png(8, 8), 'tiny.png'));
    await api.drainJobs();
    expect((await read(op)).body.data).toMatchObject({ status: 'error', error_code: 'image_dimensions_out_of_range' });
  });

  it('detects the EICAR test file and turns every upload of it into error, across organisations', async () => {
    const first = await fixtures.operator();
    const second = await fixtures.operator();
    await upload(first, form(EICAR, 'eicar.png'));
    await upload(second, form(EICAR, 'other-name.png'));
    await api.drainJobs();
    expect((await read(first)).body.data).toMatchObject({ status: 'error', error_code: 'malware_detected' });
    expect((await read(second)).body.data).toMatchObject({ status: 'error', error_code: 'malware_detected' });
  });

  it('condemns released copies too when a malicious verdict arrives later (GuardDuty)', async () => {
    const first = await fixtures.operator();
    const second = await fixtures.operator();
    const image = png(40, 40, 7);
    await upload(first, form(image, 'a.png'));
    await upload(second, form(image, 'b.png'));
    await api.drainJobs();
    expect((await read(second)).body.data.status).toBe('ready');
    const uploadId = (await getOne(keys.organisationLogo(first.organisationId)))!.upload_id as string;
    await applyVerdict(`quarantine/${uploadId}`, 'malicious', new Date());
    expect((await read(first)).body.data).toMatchObject({ status: 'error', error_code: 'malware_detected' });
    expect((await read(second)).body.data).toMatchObject({ status: 'error', error_code: 'malware_detected' });
    expect((await api.request('GET', `${logo(second)}/file`, { token: second.org })).status).toBe(404);
  });

  it('reuses a released file for the same bytes, name and uploader without scanning again', async () => {
    const op = await fixtures.operator();
    const image = png(48, 48, 99);
    await upload(op, form(image, 'same.png'));
    await api.drainJobs();
    const again = await upload(op, form(image, 'same.png'));
    expect(again.body.data.status).toBe('ready');
    const pointer = await getOne(keys.organisationLogo(op.organisationId));
    expect((await getOne(keys.upload(pointer!.upload_id as string)))!.reused_from).toEqual(expect.any(String));
  });

  it('stops a queued scan whose uploader lost the permission before it ran', async () => {
    const op = await fixtures.operator();
    await upload(op, form(png(32, 32), 'logo.png'));
    await revokeAccess(op.userId, { kind: 'organisation', id: op.organisationId });
    await api.drainJobs();
    const pointer = await getOne(keys.organisationLogo(op.organisationId));
    expect(pointer).toMatchObject({ file_status: 'error', error_code: 'authorisation_lost' });
  });

  it('replays the upload for the same key and file', async () => {
    const op = await fixtures.operator();
    const key = newUlid();
    const etag = (await read(op)).headers.get('etag');
    const first = await upload(op, form(png(20, 20), 'r.png'), { etag, key });
    const again = await upload(op, form(png(20, 20), 'r.png'), { etag, key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
  });

  it('answers 428 without If-Match, 412 with a stale one and 400 without an Idempotency-Key', async () => {
    const op = await fixtures.operator();
    expect((await upload(op, form(png(20, 20), 'x.png'), { etag: null })).status).toBe(428);
    const stale = (await read(op)).headers.get('etag');
    await upload(op, form(png(20, 20), 'x.png'), { etag: stale });
    expect((await upload(op, form(png(21, 21), 'y.png'), { etag: stale })).status).toBe(412);
    const res = await api.request('POST', logo(op), {
      token: op.org,
      form: form(png(20, 20), 'z.png'),
      headers: { 'If-Match': (await read(op)).headers.get('etag')! },
    });
    expect(res.status).toBe(400);
  });

  it('answers 422 for a form with neither a file nor an upload session', async () => {
    const op = await fixtures.operator();
    const data = new FormData();
    data.append('note', 'no file');
    const res = await upload(op, data);
    expect(res.status).toBe(422);
  });

  it('answers 400 malformed_multipart for a multipart body cut off before its closing boundary, and keeps no logo', async () => {
    const op = await fixtures.operator();
    const etag = (await read(op)).headers.get('etag')!;
    const res = await api.request('POST', logo(op), {
      token: op.org,
      rawBody: '--XyZ\r\nContent-Disposition: form-data; name="file"; filename="logo.png"\r\nContent-Type: image/png\r\n\r\nabc',
      headers: { 'Content-Type': 'multipart/form-data; boundary=XyZ', 'Idempotency-Key': newUlid(), 'If-Match': etag },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'malformed_multipart', detail: 'The multipart/form-data body cannot be read: the multipart body is malformed.' });
    expect((await read(op)).body.data.status).toBeNull();
  });

  it('answers 413 for an inline file above the inline limit, pointing to upload sessions', async () => {
    const op = await fixtures.operator();
    const res = await upload(op, form(Buffer.alloc(4 * 1024 * 1024 + 10, 1), 'big.png'));
    expect(res.status).toBe(413);
    expect(res.body.detail).toContain('upload session');
  });

  it('takes a large logo through an upload session: presigned POST, then the multipart names the session', async () => {
    const op = await fixtures.operator();
    const session = await api.request('POST', `${logo(op)}/upload-sessions`, { token: op.org, body: { file_name: 'large.png' } });
    expect(session.status).toBe(201);
    const { url, fields } = session.body.data.upload;
    const s3form = new FormData();
    for (const [k, v] of Object.entries(fields as Record<string, string>)) s3form.append(k, v);
    const image = png(256, 256, 3);
    s3form.append('file', new Blob([image]), 'large.png');
    const posted = await fetch(url, { method: 'POST', body: s3form });
    expect(posted.status).toBeLessThan(300);

    const data = new FormData();
    data.append('upload_session', session.body.data.id);
    const res = await upload(op, data);
    expect(res.status).toBe(201);
    await api.drainJobs();
    expect((await read(op)).body.data).toMatchObject({ status: 'ready', width: 256, file_name: 'large.png' });
    const reused = new FormData();
    reused.append('upload_session', session.body.data.id);
    expect((await upload(op, reused)).status).toBe(422);
  });
});
