import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Api } from '../support/api.js';
import { arrangeUploads, sessionForm } from '../support/evidence-files.js';
import { form, PDF } from '../support/files.js';
import { startProjectWorld, type World } from '../support/projects.js';

/** Issue 23: files that are what they say they are, and file answers a browser cannot turn against the user. */
let api: Api;
let world: World;

beforeAll(async () => ({ api, world } = await startProjectWorld()));
afterAll(() => api.stop());

const arrange = () => arrangeUploads(api, world);

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
