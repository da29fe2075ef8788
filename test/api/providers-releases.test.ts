import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import type { Release } from '../../lib/catalogue/store.js';
import { RELEASE_LIMIT } from '../../lib/domain/providers.js';
import { fixtures, startApi, type Api } from '../support/api.js';
import { auditRecords } from '../support/audit.js';
import { GENEROUS_BUDGETS, importSample } from '../support/projects.js';
import { storedAssertion, storedProvider, storedRelease } from '../support/providers.js';

let api: Api;
let op: Awaited<ReturnType<typeof fixtures.operator>>;
let ism: Release;
/** Administration credential without publish-provider-assurance-packages. */
let hierarchyOnly: string;

beforeAll(async () => {
  api = await startApi(GENEROUS_BUDGETS);
  ism = await importSample();
  op = await fixtures.operator();
  hierarchyOnly = await fixtures.token(op.userId, 'administration', { abilities: ['manage-org-hierarchy'] });
});
afterAll(() => api.stop());

const releasesOf = (providerId: string) => `/api/v1/external-providers/${providerId}/assurance-releases`;
const valid = () => ({ name: 'IRAP assessment 2026', version: '2026.1', ism_version_id: ism.id, assessed_on: '2026-03-01', valid_until: '2027-03-01' });
const create = (providerId: string, body: unknown, key = newUlid(), token = op.admin) =>
  api.request('POST', releasesOf(providerId), { token, body, headers: { 'Idempotency-Key': key } });

async function draft(body: Record<string, unknown> = {}) {
  const provider = await storedProvider();
  const res = await create(provider.id, { ...valid(), ...body });
  if (res.status !== 201) throw new Error(`release not created: ${res.status} ${JSON.stringify(res.body)}`);
  return { providerId: provider.id, id: res.body.data.id as string, url: `${releasesOf(provider.id)}/${res.body.data.id}`, etag: res.headers.get('etag')! };
}
const publish = (url: string, etag: string, token = op.admin) => api.request('POST', `${url}/publish`, { token, headers: { 'If-Match': etag }, body: {} });
const patch = (url: string, etag: string, body: unknown, token = op.admin) => api.request('PATCH', url, { token, headers: { 'If-Match': etag }, body });

describe('createAssuranceRelease', () => {
  it('creates a draft release with the ISM version it names, an ETag and a Location', async () => {
    const provider = await storedProvider();
    const res = await create(provider.id, { ...valid(), description: 'Covers the Sydney regions.' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      provider_id: provider.id,
      name: 'IRAP assessment 2026',
      version: '2026.1',
      ism_version_id: ism.id,
      ism_version: ism.version,
      status: 'draft',
      published_at: null,
      counts: { artefacts: 0, assertions: 0, confirmed_assertions: 0 },
    });
    expect(res.headers.get('location')).toBe(`${releasesOf(provider.id)}/${res.body.data.id}`);
    expect(res.headers.get('etag')).toMatch(/^"1-[0-9a-f]{20}"$/);
  });

  it('counts the release on its provider', async () => {
    const r = await draft();
    const provider = await api.request('GET', `/api/v1/external-providers/${r.providerId}`, { token: op.admin });
    expect(provider.body.data.release_count).toBe(1);
  });

  it('replays the first answer for the same key and answers 409 for another payload', async () => {
    const provider = await storedProvider();
    const key = newUlid();
    const first = await create(provider.id, valid(), key);
    const again = await create(provider.id, valid(), key);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
    expect((await create(provider.id, { ...valid(), version: '2026.2' }, key)).status).toBe(409);
  });

  it('answers 400 without an Idempotency-Key', async () => {
    const provider = await storedProvider();
    const res = await api.request('POST', releasesOf(provider.id), { token: op.admin, body: valid() });
    expect(res.status).toBe(400);
  });

  it('answers 422 for an ISM release that was never imported', async () => {
    const provider = await storedProvider();
    const res = await create(provider.id, { ...valid(), ism_version_id: newUlid() });
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ pointer: '/ism_version_id', code: 'unknown_ism_release' });
  });

  it('answers 422 for valid_until before assessed_on', async () => {
    const provider = await storedProvider();
    const res = await create(provider.id, { ...valid(), valid_until: '2026-01-01' });
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ pointer: '/valid_until', code: 'valid_until_before_assessed_on' });
  });

  it('answers 422 for a missing label, a bad date and a server-owned field', async () => {
    const provider = await storedProvider();
    const { version: _v, ...rest } = valid();
    const res = await create(provider.id, { ...rest, assessed_on: '2026-02-30', status: 'published' });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['/assessed_on', '/status', '/version']);
  });

  it('answers 404 under an unknown provider', async () => {
    expect((await create(newUlid(), valid())).status).toBe(404);
  });

  it('needs publish-provider-assurance-packages (403)', async () => {
    const provider = await storedProvider();
    const res = await create(provider.id, valid(), newUlid(), hierarchyOnly);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('permission_denied');
  });

  it('refuses a read-only credential (403)', async () => {
    const provider = await storedProvider();
    const readOnly = await fixtures.token(op.userId, 'administration', { readOnly: true });
    expect((await create(provider.id, valid(), newUlid(), readOnly)).status).toBe(403);
  });

  it(`refuses a release beyond ${RELEASE_LIMIT} per provider (422)`, async () => {
    const provider = await storedProvider();
    for (let i = 0; i < RELEASE_LIMIT; i++) await storedRelease(provider.id, { status: 'draft' });
    const res = await create(provider.id, valid());
    expect(res.status).toBe(422);
    expect(res.body.errors[0].code).toBe('release_limit_reached');
  });
});

describe('listAssuranceReleases and getAssuranceRelease', () => {
  it('lists drafts and published releases oldest first with an exact total', async () => {
    const provider = await storedProvider();
    const first = await storedRelease(provider.id);
    const second = await storedRelease(provider.id, { status: 'draft' });
    const res = await api.request('GET', `${releasesOf(provider.id)}?page[size]=1&page[number]=2`, { token: hierarchyOnly });
    expect(res.status).toBe(200);
    expect(res.body.meta).toMatchObject({ total: 2, current_page: 2, page_size: 1 });
    expect(res.body.data.map((r: { id: string }) => r.id)).toEqual([second.id]);
    const all = await api.request('GET', releasesOf(provider.id), { token: hierarchyOnly });
    expect(all.body.data.map((r: { status: string }) => r.status)).toEqual(['published', 'draft']);
    expect(all.body.data[0].id).toBe(first.id);
  });

  it('answers 404 for the releases of an unknown provider', async () => {
    expect((await api.request('GET', releasesOf(newUlid()), { token: op.admin })).status).toBe(404);
  });

  it('reads a release with the ETag its create answered, with manage-org-hierarchy alone', async () => {
    const r = await draft();
    const res = await api.request('GET', r.url, { token: hierarchyOnly });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe(r.etag);
  });

  it('answers 404 for a release under another provider', async () => {
    const r = await draft();
    const other = await storedProvider();
    expect((await api.request('GET', `${releasesOf(other.id)}/${r.id}`, { token: op.admin })).status).toBe(404);
  });

  it('shows the counts assertions move, and a new ETag with them', async () => {
    const r = await draft();
    await storedAssertion({ provider_id: r.providerId, id: r.id }, 'ism-0001', 'pending');
    await storedAssertion({ provider_id: r.providerId, id: r.id }, 'ism-0002', 'confirmed');
    const res = await api.request('GET', r.url, { token: op.admin });
    expect(res.body.data.counts).toEqual({ artefacts: 0, assertions: 2, confirmed_assertions: 1 });
    expect(res.headers.get('etag')).not.toBe(r.etag);
  });
});

describe('updateAssuranceRelease', () => {
  it('merges the patch of a draft: null clears, omitted keeps, the ETag moves', async () => {
    const r = await draft({ description: 'Draft text' });
    const res = await patch(r.url, r.etag, { version: '2026.1-rc2', valid_until: null });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ version: '2026.1-rc2', valid_until: null, description: 'Draft text', assessed_on: '2026-03-01' });
    expect(res.headers.get('etag')).not.toBe(r.etag);
    expect((await api.request('GET', r.url, { token: op.admin })).body.data).toEqual(res.body.data);
  });

  it('judges the dates on the release as patched', async () => {
    const r = await draft();
    const res = await patch(r.url, r.etag, { assessed_on: '2027-06-01' });
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ pointer: '/assessed_on', code: 'valid_until_before_assessed_on' });
  });

  it('answers 422 for an ISM release that was never imported', async () => {
    const r = await draft();
    const res = await patch(r.url, r.etag, { ism_version_id: newUlid() });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].pointer).toBe('/ism_version_id');
  });

  it('refuses to change the ISM release under assertions (409)', async () => {
    const r = await draft();
    await storedAssertion({ provider_id: r.providerId, id: r.id }, 'ism-0001', 'pending');
    const etag = (await api.request('GET', r.url, { token: op.admin })).headers.get('etag')!;
    const res = await patch(r.url, etag, { ism_version_id: newUlid() });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('ism_version_locked');
  });

  it('answers 428 without If-Match and 412 with a stale one', async () => {
    const r = await draft();
    expect((await api.request('PATCH', r.url, { token: op.admin, body: { name: 'x' } })).status).toBe(428);
    await patch(r.url, r.etag, { name: 'First' });
    expect((await patch(r.url, r.etag, { name: 'Second' })).status).toBe(412);
  });

  it('makes an ETag read before an import moved the counts stale (412)', async () => {
    const r = await draft();
    await storedAssertion({ provider_id: r.providerId, id: r.id }, 'ism-0003', 'pending');
    expect((await patch(r.url, r.etag, { name: 'Stale' })).status).toBe(412);
  });

  it('refuses any change to a published release (409 release_published)', async () => {
    const r = await draft();
    const published = await publish(r.url, r.etag);
    const res = await patch(r.url, published.headers.get('etag')!, { name: 'Changed after publication' });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('release_published');
  });

  it('needs publish-provider-assurance-packages (403)', async () => {
    const r = await draft();
    expect((await patch(r.url, r.etag, { name: 'x' }, hierarchyOnly)).status).toBe(403);
  });

  it('answers 422 for a server-owned field', async () => {
    const r = await draft();
    const res = await patch(r.url, r.etag, { status: 'published' });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].pointer).toBe('/status');
  });
});

describe('deleteAssuranceRelease', () => {
  it('deletes a draft and uncounts it on the provider', async () => {
    const r = await draft();
    const res = await api.request('DELETE', r.url, { token: op.admin, headers: { 'If-Match': r.etag } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: r.id, deleted: true });
    expect((await api.request('GET', r.url, { token: op.admin })).status).toBe(404);
    expect((await api.request('GET', `/api/v1/external-providers/${r.providerId}`, { token: op.admin })).body.data.release_count).toBe(0);
  });

  it('answers 422 for a release path parameter that is not a ULID', async () => {
    const provider = await storedProvider();
    const res = await api.request('DELETE', `${releasesOf(provider.id)}/not-a-ulid`, { token: op.admin, headers: { 'If-Match': '"1-x"' } });
    expect(res.status).toBe(422);
  });

  it('refuses to delete a published release (409 release_published)', async () => {
    const r = await draft();
    const published = await publish(r.url, r.etag);
    const res = await api.request('DELETE', r.url, { token: op.admin, headers: { 'If-Match': published.headers.get('etag')! } });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('release_published');
  });

  it('answers 428 without If-Match and 412 with a stale one', async () => {
    const r = await draft();
    expect((await api.request('DELETE', r.url, { token: op.admin })).status).toBe(428);
    await patch(r.url, r.etag, { name: 'Moved' });
    expect((await api.request('DELETE', r.url, { token: op.admin, headers: { 'If-Match': r.etag } })).status).toBe(412);
  });

  it('needs publish-provider-assurance-packages (403)', async () => {
    const r = await draft();
    expect((await api.request('DELETE', r.url, { token: hierarchyOnly, headers: { 'If-Match': r.etag } })).status).toBe(403);
  });
});

describe('publishAssuranceRelease', () => {
  it('publishes a draft with the current ETag, recording who and when', async () => {
    const r = await draft();
    const res = await publish(r.url, r.etag);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'published', published_by: op.userId });
    expect(res.body.data.published_at).toEqual(expect.any(String));
    expect(res.headers.get('etag')).not.toBe(r.etag);
    expect((await api.request('GET', r.url, { token: op.admin })).headers.get('etag')).toBe(res.headers.get('etag'));
  });

  it('writes an audit record naming the provider and the release', async () => {
    const r = await draft();
    const res = await publish(r.url, r.etag);
    const records = await auditRecords('installation');
    expect(records).toContainEqual(
      expect.objectContaining({
        kind: 'PUBLISH_ASSURANCE_RELEASE',
        request_id: res.headers.get('x-request-id'),
        target: { provider: r.providerId, release: r.id },
      }),
    );
  });

  it('answers 409 release_published when published again', async () => {
    const r = await draft();
    const first = await publish(r.url, r.etag);
    const again = await publish(r.url, first.headers.get('etag')!);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('release_published');
  });

  it('publishes once when two publications race with the same ETag', async () => {
    const r = await draft();
    const statuses = (await Promise.all([publish(r.url, r.etag), publish(r.url, r.etag)])).map((res) => res.status).sort();
    expect(statuses).toEqual([200, 409]);
  });

  it('answers 428 without If-Match and 412 with a stale one', async () => {
    const r = await draft();
    expect((await api.request('POST', `${r.url}/publish`, { token: op.admin, body: {} })).status).toBe(428);
    await patch(r.url, r.etag, { name: 'Edited' });
    expect((await publish(r.url, r.etag)).status).toBe(412);
  });

  it('needs the assessment date (422 release_incomplete)', async () => {
    const r = await draft({ assessed_on: null, valid_until: null });
    const res = await publish(r.url, r.etag);
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ pointer: '/assessed_on', code: 'release_incomplete' });
  });

  it('takes a request without a body as the empty object', async () => {
    const r = await draft();
    const res = await api.request('POST', `${r.url}/publish`, { token: op.admin, headers: { 'If-Match': r.etag } });
    expect(res.status).toBe(200);
  });

  it('answers 422 for a body other than an empty object', async () => {
    const r = await draft();
    const res = await api.request('POST', `${r.url}/publish`, { token: op.admin, headers: { 'If-Match': r.etag }, body: { status: 'published' } });
    expect(res.status).toBe(422);
  });

  it('needs publish-provider-assurance-packages (403) and a mutation-enabled credential (403)', async () => {
    const r = await draft();
    expect((await publish(r.url, r.etag, hierarchyOnly)).status).toBe(403);
    const readOnly = await fixtures.token(op.userId, 'administration', { readOnly: true });
    const res = await publish(r.url, r.etag, readOnly);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('read_only_credential');
  });
});
