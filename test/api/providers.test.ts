import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import { fixtures, startApi, type Api } from '../support/api.js';
import { GENEROUS_BUDGETS } from '../support/projects.js';
import { storedRelease } from '../support/providers.js';

let api: Api;
let op: Awaited<ReturnType<typeof fixtures.operator>>;
/** Administration credential without publish-provider-assurance-packages. */
let hierarchyOnly: string;

beforeAll(async () => {
  api = await startApi(GENEROUS_BUDGETS);
  op = await fixtures.operator();
  hierarchyOnly = await fixtures.token(op.userId, 'administration', { abilities: ['manage-org-hierarchy'] });
});
afterAll(() => api.stop());

const BASE = '/api/v1/external-providers';
const create = (body: unknown, key = newUlid(), token = op.admin) => api.request('POST', BASE, { token, body, headers: { 'Idempotency-Key': key } });
async function provider(body: Record<string, unknown> = {}) {
  const res = await create({ name: `Cloud ${newUlid()}`, ...body });
  if (res.status !== 201) throw new Error(`provider not created: ${res.status}`);
  return { id: res.body.data.id as string, url: `${BASE}/${res.body.data.id}`, etag: res.headers.get('etag')! };
}

describe('createExternalProvider', () => {
  it('creates a provider with an ETag, a Location and a fresh receipt', async () => {
    const res = await create({ name: 'Example Cloud', description: 'IaaS and PaaS.\nSydney regions.', website: 'https://cloud.example' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      name: 'Example Cloud',
      description: 'IaaS and PaaS.\nSydney regions.',
      website: 'https://cloud.example',
      release_count: 0,
    });
    expect(res.headers.get('location')).toBe(`${BASE}/${res.body.data.id}`);
    expect(res.headers.get('etag')).toMatch(/^"1-[0-9a-f]{20}"$/);
    expect(res.headers.get('idempotency-replayed')).toBe('false');
  });

  it('replays the first answer for the same key and payload', async () => {
    const key = newUlid();
    const first = await create({ name: 'Replayed Cloud' }, key);
    const second = await create({ name: 'Replayed Cloud' }, key);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotency-replayed')).toBe('true');
    expect(second.body.data).toEqual(first.body.data);
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
  });

  it('answers 409 for the same key with another payload', async () => {
    const key = newUlid();
    await create({ name: 'First Cloud' }, key);
    const res = await create({ name: 'Second Cloud' }, key);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('idempotency_key_reused');
  });

  it('answers 400 without an Idempotency-Key', async () => {
    const res = await api.request('POST', BASE, { token: op.admin, body: { name: 'No Key' } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('idempotency_key_invalid');
  });

  it('answers 422 with pointers for a blank name, a non-http website and an unknown property', async () => {
    const res = await create({ name: ' ', website: 'javascript:alert(1)', status: 'published' });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['/name', '/status', '/website']);
  });

  it('answers 422 for a control character in the name', async () => {
    const res = await create({ name: 'Cloud\u202Eevil' });
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ pointer: '/name', code: 'forbidden_character' });
  });

  it('refuses a read-only credential (403)', async () => {
    const readOnly = await fixtures.token(op.userId, 'administration', { readOnly: true });
    const res = await create({ name: 'Read Only Cloud' }, newUlid(), readOnly);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('read_only_credential');
  });

  it('refuses a credential without manage-org-hierarchy (403)', async () => {
    const other = await fixtures.user();
    await fixtures.grant(other, { kind: 'installation' }, ['manage-org-hierarchy', 'view-restricted-provider-artefacts']);
    const token = await fixtures.token(other, 'administration', { abilities: ['manage-org-hierarchy', 'view-restricted-provider-artefacts'] });
    await fixtures.grant(other, { kind: 'installation' }, ['view-restricted-provider-artefacts']);
    const res = await create({ name: 'Lost Permission Cloud' }, newUlid(), token);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('permission_denied');
  });

  it('refuses an organisation credential (401)', async () => {
    const res = await create({ name: 'Wrong Type Cloud' }, newUlid(), op.org);
    expect(res.status).toBe(401);
  });
});

describe('listExternalProviders', () => {
  it('lists providers oldest first with an exact total and paging', async () => {
    await provider();
    await provider();
    const all = await api.request('GET', `${BASE}?page[size]=100`, { token: op.admin });
    expect(all.status).toBe(200);
    expect(all.body.meta.total).toBeGreaterThanOrEqual(2);
    const ids = all.body.data.map((p: { id: string }) => p.id);
    expect(ids).toEqual([...ids].sort());
    const second = await api.request('GET', `${BASE}?page[number]=2&page[size]=1`, { token: op.admin });
    expect(second.body.data.map((p: { id: string }) => p.id)).toEqual([ids[1]]);
    expect(second.body.meta).toMatchObject({ current_page: 2, page_size: 1, total: all.body.meta.total });
  });

  it('lists for a read-only credential', async () => {
    const readOnly = await fixtures.token(op.userId, 'administration', { readOnly: true, abilities: ['manage-org-hierarchy'] });
    expect((await api.request('GET', BASE, { token: readOnly })).status).toBe(200);
  });

  it('answers 422 for an unknown query parameter', async () => {
    const res = await api.request('GET', `${BASE}?filter[name]=x`, { token: op.admin });
    expect(res.status).toBe(422);
  });
});

describe('getExternalProvider', () => {
  it('reads a provider with the ETag its create answered', async () => {
    const p = await provider({ description: 'Managed services' });
    const res = await api.request('GET', p.url, { token: op.admin });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: p.id, description: 'Managed services', website: null });
    expect(res.headers.get('etag')).toBe(p.etag);
  });

  it('answers 404 for an unknown provider', async () => {
    expect((await api.request('GET', `${BASE}/${newUlid()}`, { token: op.admin })).status).toBe(404);
  });

  it('answers 422 for a path parameter that is not a ULID', async () => {
    expect((await api.request('GET', `${BASE}/not-a-ulid`, { token: op.admin })).status).toBe(422);
  });
});

describe('updateExternalProvider', () => {
  it('merges the patch: null clears, omitted keeps, and the ETag moves', async () => {
    const p = await provider({ description: 'Old text', website: 'https://old.example' });
    const res = await api.request('PATCH', p.url, { token: op.admin, headers: { 'If-Match': p.etag }, body: { name: 'Renamed Cloud', website: null } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ name: 'Renamed Cloud', description: 'Old text', website: null });
    expect(res.headers.get('etag')).not.toBe(p.etag);
    expect((await api.request('GET', p.url, { token: op.admin })).headers.get('etag')).toBe(res.headers.get('etag'));
  });

  it('answers 428 without If-Match and 412 with a stale one', async () => {
    const p = await provider();
    expect((await api.request('PATCH', p.url, { token: op.admin, body: { name: 'No Match' } })).status).toBe(428);
    await api.request('PATCH', p.url, { token: op.admin, headers: { 'If-Match': p.etag }, body: { name: 'First Edit' } });
    const stale = await api.request('PATCH', p.url, { token: op.admin, headers: { 'If-Match': p.etag }, body: { name: 'Second Edit' } });
    expect(stale.status).toBe(412);
  });

  it('makes the ETag read before a release was added stale', async () => {
    const p = await provider();
    await storedRelease(p.id, { status: 'draft' });
    const res = await api.request('PATCH', p.url, { token: op.admin, headers: { 'If-Match': p.etag }, body: { name: 'After Release' } });
    expect(res.status).toBe(412);
  });

  it('answers 422 for an empty patch and for a field the server owns', async () => {
    const p = await provider();
    expect((await api.request('PATCH', p.url, { token: op.admin, headers: { 'If-Match': p.etag }, body: {} })).status).toBe(422);
    const owned = await api.request('PATCH', p.url, { token: op.admin, headers: { 'If-Match': p.etag }, body: { release_count: 3 } });
    expect(owned.status).toBe(422);
    expect(owned.body.errors[0].pointer).toBe('/release_count');
  });

  it('refuses a read-only credential (403)', async () => {
    const p = await provider();
    const readOnly = await fixtures.token(op.userId, 'administration', { readOnly: true });
    const res = await api.request('PATCH', p.url, { token: readOnly, headers: { 'If-Match': p.etag }, body: { name: 'Nope' } });
    expect(res.status).toBe(403);
  });
});

describe('deleteExternalProvider', () => {
  it('deletes a provider without releases with manage-org-hierarchy alone', async () => {
    const p = await provider();
    const res = await api.request('DELETE', p.url, { token: hierarchyOnly, headers: { 'If-Match': p.etag } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: p.id, deleted: true, deleted_releases: 0 });
    expect((await api.request('GET', p.url, { token: op.admin })).status).toBe(404);
  });

  it('needs publish-provider-assurance-packages when the provider has releases (403)', async () => {
    const p = await provider();
    await storedRelease(p.id, { status: 'draft' });
    const etag = (await api.request('GET', p.url, { token: op.admin })).headers.get('etag')!;
    const res = await api.request('DELETE', p.url, { token: hierarchyOnly, headers: { 'If-Match': etag } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('permission_denied');
  });

  it('deletes the provider with its draft and published releases', async () => {
    const p = await provider();
    const draft = await storedRelease(p.id, { status: 'draft' });
    const published = await storedRelease(p.id);
    const etag = (await api.request('GET', p.url, { token: op.admin })).headers.get('etag')!;
    const res = await api.request('DELETE', p.url, { token: op.admin, headers: { 'If-Match': etag } });
    expect(res.status).toBe(200);
    expect(res.body.data.deleted_releases).toBe(2);
    for (const r of [draft, published]) {
      expect((await api.request('GET', `${p.url}/assurance-releases/${r.id}`, { token: op.admin })).status).toBe(404);
    }
  });

  it('answers 428 without If-Match, 412 with a stale one and 404 once deleted', async () => {
    const p = await provider();
    expect((await api.request('DELETE', p.url, { token: op.admin })).status).toBe(428);
    const edited = await api.request('PATCH', p.url, { token: op.admin, headers: { 'If-Match': p.etag }, body: { name: 'Edited Before Delete' } });
    expect((await api.request('DELETE', p.url, { token: op.admin, headers: { 'If-Match': p.etag } })).status).toBe(412);
    expect((await api.request('DELETE', p.url, { token: op.admin, headers: { 'If-Match': edited.headers.get('etag')! } })).status).toBe(200);
    expect((await api.request('DELETE', p.url, { token: op.admin, headers: { 'If-Match': edited.headers.get('etag')! } })).status).toBe(404);
  });

  it('refuses a read-only credential (403)', async () => {
    const p = await provider();
    const readOnly = await fixtures.token(op.userId, 'administration', { readOnly: true });
    expect((await api.request('DELETE', p.url, { token: readOnly, headers: { 'If-Match': p.etag } })).status).toBe(403);
  });
});
