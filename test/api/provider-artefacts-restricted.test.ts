import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import type { Permission } from '../../lib/domain/permissions.js';
import { fixtures, startApi, type Api } from '../support/api.js';
import { form, PDF } from '../support/files.js';
import { linkForm, providerArtefacts } from '../support/provider-artefacts.js';
import { GENEROUS_BUDGETS } from '../support/projects.js';
import { storedProvider, storedRelease } from '../support/providers.js';

let api: Api;
let op: Awaited<ReturnType<typeof fixtures.operator>>;
/** Administration credentials of the operator with the named permissions only. */
const as: Record<'hierarchy' | 'uploadOnly' | 'viewOnly', string> = { hierarchy: '', uploadOnly: '', viewOnly: '' };

beforeAll(async () => {
  api = await startApi(GENEROUS_BUDGETS, { jobs: 'manual' });
  op = await fixtures.operator();
  as.hierarchy = await fixtures.token(op.userId, 'administration', { abilities: ['manage-org-hierarchy'] });
  as.uploadOnly = await fixtures.token(op.userId, 'administration', { abilities: ['manage-org-hierarchy', 'upload-restricted-provider-artefacts'] });
  as.viewOnly = await fixtures.token(op.userId, 'administration', { abilities: ['manage-org-hierarchy', 'view-restricted-provider-artefacts'] });
});
afterAll(() => api.stop());

const restricted = (fields: Record<string, string> = {}) => linkForm('https://provider.example/restricted', { restricted: 'true', ...fields });

async function arrange() {
  const provider = await storedProvider();
  return { provider, a: providerArtefacts(api, provider.id, op.admin) };
}

describe('creating restricted artefacts', () => {
  it.each(['hierarchy', 'viewOnly'] as const)('needs upload-restricted-provider-artefacts (403 with %s)', async (who) => {
    const { a } = await arrange();
    const res = await a.create(restricted(), newUlid(), as[who]);
    expect(res.status).toBe(403);
    expect((await a.list()).body.meta.total).toBe(0);
  });

  it('answers the whole artefact, with an ETag, to a credential that may view restricted ones', async () => {
    const { a } = await arrange();
    const res = await a.create(restricted());
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ restricted: true, kind: 'link', url: 'https://provider.example/restricted' });
    expect(res.headers.get('etag')).toBeTruthy();
  });

  it('answers an upload-only credential a minimal receipt: no content, no ETag, no Location', async () => {
    const { a } = await arrange();
    const res = await a.create(restricted({ name: 'Penetration test' }), newUlid(), as.uploadOnly);
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({ id: expect.any(String), restricted: true, received: true });
    expect(res.headers.get('etag')).toBeNull();
    expect(res.headers.get('location')).toBeNull();
  });

  it('grants an upload-only credential no later reads of what it created: detail, list, download and deletion are 404 or omitted', async () => {
    const { a } = await arrange();
    const file = (await a.create(form(PDF, 'pentest.pdf', 'application/pdf', { restricted: 'true' }), newUlid(), as.uploadOnly)).body.data;
    await api.drainJobs();
    expect((await a.get(file.id)).body.data.status).toBe('ready');
    expect((await a.get(file.id, as.uploadOnly)).status).toBe(404);
    expect((await a.download(file.id, as.uploadOnly)).status).toBe(404);
    expect((await a.remove(file.id, (await a.get(file.id)).headers.get('etag')!, as.uploadOnly)).status).toBe(404);
    const list = await a.list('', as.uploadOnly);
    expect(list.body.data).toEqual([]);
    expect(list.body.meta.total).toBe(0);
  });

  it('replays an upload-only receipt as the same minimal receipt', async () => {
    const { a } = await arrange();
    const key = newUlid();
    const first = await a.create(restricted(), key, as.uploadOnly);
    const again = await a.create(restricted(), key, as.uploadOnly);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
  });

  it('replays a full answer as a minimal receipt once the actor no longer holds view-restricted-provider-artefacts', async () => {
    const { provider } = await arrange();
    const userId = await fixtures.user();
    const all: Permission[] = ['manage-org-hierarchy', 'upload-restricted-provider-artefacts', 'view-restricted-provider-artefacts'];
    await fixtures.grant(userId, { kind: 'installation' }, all);
    const token = await fixtures.token(userId, 'administration', { abilities: all });
    const a = providerArtefacts(api, provider.id, token);
    const key = newUlid();
    const first = await a.create(restricted(), key);
    expect(first.body.data.url).toBe('https://provider.example/restricted');
    await fixtures.grant(userId, { kind: 'installation' }, ['manage-org-hierarchy', 'upload-restricted-provider-artefacts']);
    const again = await a.create(restricted(), key);
    expect(again.body.data).toEqual({ id: first.body.data.id, restricted: true, received: true });
    expect(again.headers.get('etag')).toBeNull();
  });
});

describe('scans of restricted files', () => {
  it('refuse the file (authorisation_lost) when its uploader lost upload-restricted-provider-artefacts before the scan', async () => {
    const { provider, a } = await arrange();
    const userId = await fixtures.user();
    const uploader: Permission[] = ['manage-org-hierarchy', 'upload-restricted-provider-artefacts'];
    await fixtures.grant(userId, { kind: 'installation' }, uploader);
    const token = await fixtures.token(userId, 'administration', { abilities: uploader });
    const receipt = (await providerArtefacts(api, provider.id, token).create(form(PDF, 'p.pdf', 'application/pdf', { restricted: 'true' }))).body.data;
    await fixtures.grant(userId, { kind: 'installation' }, ['manage-org-hierarchy']);
    await api.drainJobs();
    expect((await a.get(receipt.id)).body.data).toMatchObject({ status: 'error', error_code: 'authorisation_lost', file_url: null });
  });
});

describe('reading restricted artefacts', () => {
  it('omits restricted artefacts from the list and its total without view-restricted-provider-artefacts', async () => {
    const { a } = await arrange();
    const open = await a.created(linkForm('https://provider.example/open'));
    await a.created(restricted());
    const list = await a.list('', as.hierarchy);
    expect(list.body.data.map((x: { id: string }) => x.id)).toEqual([open.id]);
    expect(list.body.meta.total).toBe(1);
    const full = await a.list('', as.viewOnly);
    expect(full.body.meta.total).toBe(2);
    expect(full.body.data).toHaveLength(2);
  });

  it('answers 404 to a detail read without view-restricted-provider-artefacts, the same as an unknown artefact', async () => {
    const { a } = await arrange();
    const made = await a.created(restricted());
    const hidden = await a.get(made.id, as.hierarchy);
    const unknown = await a.get(newUlid(), as.hierarchy);
    expect(hidden.status).toBe(404);
    expect(hidden.body.detail).toBe(unknown.body.detail);
    expect((await a.get(made.id, as.viewOnly)).body.data.restricted).toBe(true);
  });

  it('shows the protected file_url of a ready restricted file and streams it with view-restricted-provider-artefacts only', async () => {
    const { provider, a } = await arrange();
    const made = await a.created(form(PDF, 'pentest.pdf', 'application/pdf', { restricted: 'true' }));
    await api.drainJobs();
    const read = await a.get(made.id, as.viewOnly);
    expect(read.body.data.file_url).toBe(`/api/v1/external-providers/${provider.id}/artefacts/${made.id}/file`);
    expect((await a.download(made.id, as.hierarchy)).status).toBe(404);
    const file = await a.download(made.id, as.viewOnly);
    expect(file.status).toBe(200);
    expect(file.bytes.equals(PDF)).toBe(true);
  });

  it('lets only view-restricted-provider-artefacts delete a restricted artefact', async () => {
    const { a } = await arrange();
    const made = await a.created(restricted());
    const etag = (await a.get(made.id)).headers.get('etag')!;
    expect((await a.remove(made.id, etag, as.hierarchy)).status).toBe(404);
    expect((await a.remove(made.id, etag, as.viewOnly)).status).toBe(200);
  });
});

describe('restricted files in a bulk upload', () => {
  const releaseEtag = async (providerId: string, releaseId: string) =>
    (await api.request('GET', `/api/v1/external-providers/${providerId}/assurance-releases/${releaseId}`, { token: op.admin })).headers.get('etag')!;

  it('needs upload-restricted-provider-artefacts for a restricted file (403)', async () => {
    const { provider } = await arrange();
    const release = await storedRelease(provider.id, { status: 'draft' });
    const a = providerArtefacts(api, provider.id, as.viewOnly);
    const res = await a.bulk(release.id, await releaseEtag(provider.id, release.id), [{ upload_session: await a.session('p.pdf', PDF), restricted: true }]);
    expect(res.status).toBe(403);
  });

  it('answers minimal receipts for the restricted rows of an upload-only credential, and whole rows for the others', async () => {
    const { provider } = await arrange();
    const release = await storedRelease(provider.id, { status: 'draft' });
    const a = providerArtefacts(api, provider.id, as.uploadOnly);
    const files = [{ upload_session: await a.session('p.pdf', PDF), restricted: true }, { upload_session: await a.session('q.pdf', PDF) }];
    const res = await a.bulk(release.id, await releaseEtag(provider.id, release.id), files);
    expect(res.status).toBe(201);
    expect(res.body.data[0]).toEqual({ id: expect.any(String), restricted: true, received: true });
    expect(res.body.data[1]).toMatchObject({ restricted: false, file_name: 'q.pdf' });
  });
});
