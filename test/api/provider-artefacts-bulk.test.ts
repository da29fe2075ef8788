import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import type { Release } from '../../lib/catalogue/store.js';
import { fixtures, startApi, type Api } from '../support/api.js';
import { officeDocument, PDF } from '../support/files.js';
import { bulkUrl, providerArtefacts } from '../support/provider-artefacts.js';
import { GENEROUS_BUDGETS, importSample } from '../support/projects.js';
import { releaseAsStored, storedProvider, storedRelease } from '../support/providers.js';

let api: Api;
let op: Awaited<ReturnType<typeof fixtures.operator>>;
let ism: Release;

beforeAll(async () => {
  api = await startApi(GENEROUS_BUDGETS, { jobs: 'manual' });
  ism = await importSample();
  op = await fixtures.operator();
});
afterAll(() => api.stop());

const MiB = 1024 * 1024;
const xlsx = () => officeDocument('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml', 'xl');

async function arrange(status: 'draft' | 'published' = 'draft') {
  const provider = await storedProvider();
  const release = await storedRelease(provider.id, { status, ismVersionId: ism.id });
  const a = providerArtefacts(api, provider.id, op.admin);
  const releaseUrl = `/api/v1/external-providers/${provider.id}/assurance-releases/${release.id}`;
  const etag = async () => (await api.request('GET', releaseUrl, { token: op.admin })).headers.get('etag')!;
  return { provider, release, a, etag };
}

describe('uploadReleaseArtefacts', () => {
  it('creates one pending artefact per upload session, of the release and its ISM release, which the scans make ready', async () => {
    const { release, a, etag } = await arrange();
    const files = [{ upload_session: await a.session('ccm.xlsx', xlsx()) }, { upload_session: await a.session('report.pdf', PDF), name: 'IRAP report' }];
    const res = await a.bulk(release.id, await etag(), files);
    expect(res.status).toBe(201);
    expect(res.body.data).toHaveLength(2);
    expect(res.body.data[0]).toMatchObject({ kind: 'file', file_name: 'ccm.xlsx', status: 'pending', release_id: release.id, ism_version_id: ism.id });
    expect(res.body.data[1]).toMatchObject({ name: 'IRAP report', file_name: 'report.pdf' });
    await api.drainJobs();
    for (const made of res.body.data) expect((await a.get(made.id)).body.data.status).toBe('ready');
  });

  it("moves the release's artefact count, which makes its ETag stale (412 on a second upload with it)", async () => {
    const { provider, release, a, etag } = await arrange();
    const first = await etag();
    expect((await a.bulk(release.id, first, [{ upload_session: await a.session('a.pdf', PDF) }])).status).toBe(201);
    expect((await releaseAsStored(provider.id, release.id)).artefacts).toBe(1);
    expect(await etag()).not.toBe(first);
    expect((await a.bulk(release.id, first, [{ upload_session: await a.session('b.pdf', PDF) }])).status).toBe(412);
  });

  it('answers 428 without If-Match', async () => {
    const { provider, release, a } = await arrange();
    const res = await api.request('POST', bulkUrl(provider.id, release.id), {
      token: op.admin,
      body: { files: [{ upload_session: await a.session('a.pdf', PDF) }] },
    });
    expect(res.status).toBe(428);
  });

  it('refuses a published release (409 release_published)', async () => {
    const { release, a, etag } = await arrange('published');
    const res = await a.bulk(release.id, await etag(), [{ upload_session: await a.session('a.pdf', PDF) }]);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('release_published');
  });

  it.each([
    ['no file', 0],
    ['26 files', 26],
  ])('refuses %s (422 at /files)', async (_label, count) => {
    const { release, a, etag } = await arrange();
    const files = Array.from({ length: count }, () => ({ upload_session: newUlid() }));
    const res = await a.bulk(release.id, await etag(), files);
    expect(res.status).toBe(422);
    expect(res.body.errors[0].pointer).toBe('/files');
  });

  it('takes 25 files at once', async () => {
    const { release, a, etag } = await arrange();
    const files = [];
    for (let i = 0; i < 25; i++) files.push({ upload_session: await a.session(`part-${i}.txt`, Buffer.from(`part ${i}\n`)) });
    const res = await a.bulk(release.id, await etag(), files);
    expect(res.status).toBe(201);
    expect(res.body.data).toHaveLength(25);
  });

  it('refuses the same upload session twice, and unknown keys (422)', async () => {
    const { release, a, etag } = await arrange();
    const session = await a.session('a.pdf', PDF);
    expect((await a.bulk(release.id, await etag(), [{ upload_session: session }, { upload_session: session }])).status).toBe(422);
    expect((await a.bulk(release.id, await etag(), [{ upload_session: session, colour: 'blue' }])).status).toBe(422);
  });

  it('refuses a session that holds no file, pointing at its entry, and creates nothing', async () => {
    const { provider, release, a, etag } = await arrange();
    const made = await api.request('POST', `/api/v1/external-providers/${provider.id}/artefact-upload-sessions`, {
      token: op.admin,
      body: { file_name: 'x.pdf' },
    });
    const files = [{ upload_session: await a.session('a.pdf', PDF) }, { upload_session: made.body.data.id }];
    const res = await a.bulk(release.id, await etag(), files);
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ pointer: '/files/1/upload_session', code: 'invalid_upload_session' });
    expect((await a.list()).body.meta.total).toBe(0);
  });

  it('bounds each file at 50 MiB: the session says so, and a larger file is refused at its entry (422 file_too_large)', async () => {
    const { provider, release, a, etag } = await arrange();
    const made = await api.request('POST', `/api/v1/external-providers/${provider.id}/artefact-upload-sessions`, {
      token: op.admin,
      body: { file_name: 'big.txt' },
    });
    expect(made.body.data.max_bytes).toBe(50 * MiB);
    const files = [{ upload_session: await a.session('small.pdf', PDF) }, { upload_session: await a.session('big.txt', Buffer.alloc(50 * MiB + 1, 0x41)) }];
    const res = await a.bulk(release.id, await etag(), files);
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ pointer: '/files/1/upload_session', code: 'file_too_large' });
  });
});
