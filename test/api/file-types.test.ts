import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import type { Api } from '../support/api.js';
import { fixtures } from '../support/api.js';
import { arrangeUploads, pdfForm, sessionForm } from '../support/evidence-files.js';
import { form, PDF, png } from '../support/files.js';
import { startProjectWorld, type World } from '../support/projects.js';

/** Issue 23: file answers a browser cannot turn against the user, and files that are what they say. */
let api: Api;
let world: World;

beforeAll(async () => ({ api, world } = await startProjectWorld()));
afterAll(() => api.stop());

const arrange = () => arrangeUploads(api, world);

describe('file answers', () => {
  it('sandboxes an image the content endpoint shows inline, never sniffed', async () => {
    const a = await arrange();
    const item = await a.uploaded(form(png(20, 20), 'screen.png', 'image/png'));
    const res = await a.content(item.id);
    expect(res.headers.get('content-disposition')).toMatch(/^inline; filename="screen.png"/);
    expect(res.headers.get('content-security-policy')).toBe('sandbox');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('answers a PDF from the content endpoint as an attachment, sandboxed', async () => {
    const a = await arrange();
    const item = await a.uploaded(pdfForm('open-action.pdf'));
    const res = await a.content(item.id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="open-action.pdf"; filename*=UTF-8''open-action.pdf`);
    expect(res.headers.get('content-security-policy')).toBe('sandbox');
  });

  it('sandboxes the logo file', async () => {
    const op = await fixtures.operator();
    const url = `/api/v1/organisations/${op.organisationId}/logo`;
    const etag = (await api.request('GET', url, { token: op.org })).headers.get('etag')!;
    const headers = { 'Idempotency-Key': newUlid(), 'If-Match': etag };
    expect((await api.request('POST', url, { token: op.org, form: form(png(32, 32), 'logo.png'), headers })).status).toBe(201);
    await api.drainJobs();
    const file = await api.request('GET', `${url}/file`, { token: op.org });
    expect(file.headers.get('content-security-policy')).toBe('sandbox');
    expect(file.headers.get('content-disposition')).toBe('inline');
  });
});

describe('a file whose type disagrees with its claim', () => {
  it('is refused inline (422 file_type_mismatch) naming the detected type and the claim, creating nothing', async () => {
    const a = await arrange();
    const res = await a.upload(form(PDF, 'x.png', 'image/png'));
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ code: 'file_type_mismatch', detected_type: 'application/pdf', claimed: { media_type: 'image/png', extension: 'png' } });
    expect(res.body.detail).toContain('application/pdf');
    expect(res.body.detail).toContain('image/png');
    expect(res.body.errors[0]).toMatchObject({ pointer: '/file', code: 'file_type_mismatch' });
    expect(await a.items()).toEqual([]);
  });

  it("is refused inline when only the name's extension disagrees", async () => {
    const a = await arrange();
    const res = await a.upload(form(PDF, 'report.html', 'application/pdf'));
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'file_type_mismatch', claimed: { media_type: 'application/pdf', extension: 'html' } });
    expect(res.body.detail).toContain('.html');
  });

  it('ends in error (file_type_mismatch) after its scan when it came through an upload session', async () => {
    const a = await arrange();
    const res = await a.upload(sessionForm(await a.session('x.png', PDF)));
    expect(res.status).toBe(201);
    await api.drainJobs();
    expect((await a.item(res.body.data.id)).body).toMatchObject({ status: 'error', error: 'file_type_mismatch', links: {} });
    expect((await a.content(res.body.data.id)).status).toBe(404);
  });
});
