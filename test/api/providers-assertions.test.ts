import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isValid } from 'ulid';
import { assertionId } from '../../lib/domain/assertions.js';
import { fixtures, startApi, type Api } from '../support/api.js';
import { GENEROUS_BUDGETS } from '../support/projects.js';
import { storedAssertion, storedProvider, storedRelease } from '../support/providers.js';

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

/** A pending assertion about ism-1691 in a release of a new provider, with its URL and row ETag. */
async function pending(options: { status?: 'draft' | 'published'; assertion?: 'pending' | 'confirmed' } = {}) {
  const provider = await storedProvider();
  const release = await storedRelease(provider.id, { status: options.status ?? 'draft' });
  const assertion = await storedAssertion(release, 'ism-1691', options.assertion ?? 'pending');
  const url = `/api/v1/external-providers/${provider.id}/assertions/${assertion.id}`;
  const etag = (await api.request('GET', url, { token: op.admin })).headers.get('etag')!;
  return { provider, release, assertion, url, etag };
}
const review = (url: string, verb: 'confirm' | 'reject', etag: string | undefined, body: unknown = {}, token = op.admin) =>
  api.request('POST', `${url}/${verb}`, { token, body, headers: etag ? { 'If-Match': etag } : {} });
const countsOf = async (providerId: string, releaseId: string) =>
  (await api.request('GET', `/api/v1/external-providers/${providerId}/assurance-releases/${releaseId}`, { token: op.admin })).body.data.counts;

describe('getAssertion', () => {
  it('answers the assertion with what the import read and a row ETag', async () => {
    const { url, release } = await pending();
    const res = await api.request('GET', url, { token: op.admin });
    expect([res.status, res.body.data.control_id, res.body.data.release_id, res.body.data.status, res.body.data.exact]).toEqual([
      200,
      'ism-1691',
      release.id,
      'pending',
      true,
    ]);
    expect(res.headers.get('etag')).toMatch(/^"1-[0-9a-f]{20}"$/);
  });

  it('names the assertion by a ULID', async () => {
    const { url } = await pending();
    expect(isValid((await api.request('GET', url, { token: op.admin })).body.data.id)).toBe(true);
  });

  it('answers 404 for a control the release has no assertion about', async () => {
    const { provider, release } = await pending();
    expect(
      (await api.request('GET', `/api/v1/external-providers/${provider.id}/assertions/${assertionId(release.id, 'ism-0009')}`, { token: op.admin })).status,
    ).toBe(404);
  });

  it('answers 404 for the id an assertion had before assertions had ULIDs', async () => {
    const { provider, release } = await pending();
    expect((await api.request('GET', `/api/v1/external-providers/${provider.id}/assertions/${release.id}-ism-1691`, { token: op.admin })).status).toBe(404);
  });

  it('answers 422 for an id that is not a ULID', async () => {
    const { provider } = await pending();
    expect((await api.request('GET', `/api/v1/external-providers/${provider.id}/assertions/ism-1691`, { token: op.admin })).status).toBe(422);
  });

  it('needs publish-provider-assurance-packages (403)', async () => {
    const { url } = await pending();
    expect((await api.request('GET', url, { token: hierarchyOnly })).status).toBe(403);
  });
});

describe('confirmAssertion', () => {
  it('confirms the assertion with a new row ETag', async () => {
    const { url, etag } = await pending();
    const res = await review(url, 'confirm', etag);
    expect([res.status, res.body.data.status, res.body.data.reviewed_by]).toEqual([200, 'confirmed', op.userId]);
    expect(res.headers.get('etag')).not.toBe(etag);
  });

  it('counts the confirmation on the release', async () => {
    const { url, etag, provider, release } = await pending();
    await review(url, 'confirm', etag);
    expect(await countsOf(provider.id, release.id)).toMatchObject({ assertions: 1, confirmed_assertions: 1 });
  });

  it('answers 428 without If-Match and 412 with a stale row ETag', async () => {
    const { url, etag } = await pending();
    expect((await review(url, 'confirm', undefined)).status).toBe(428);
    await review(url, 'confirm', etag);
    expect((await review(url, 'confirm', etag)).status).toBe(412);
  });

  it('refuses an assertion of a published release (409 release_published)', async () => {
    const { url, etag } = await pending({ status: 'published' });
    const res = await review(url, 'confirm', etag);
    expect([res.status, res.body.code]).toEqual([409, 'release_published']);
  });

  it('answers 422 for a body with a property', async () => {
    const { url, etag } = await pending();
    expect((await review(url, 'confirm', etag, { status: 'confirmed' })).status).toBe(422);
  });

  it('needs publish-provider-assurance-packages (403)', async () => {
    const { url, etag } = await pending();
    expect((await review(url, 'confirm', etag, {}, hierarchyOnly)).status).toBe(403);
  });
});

describe('rejectAssertion', () => {
  it('rejects a confirmed assertion and takes it out of the release’s confirmed count', async () => {
    const { url, etag, provider, release } = await pending({ assertion: 'confirmed' });
    const res = await review(url, 'reject', etag);
    expect([res.status, res.body.data.status, (await countsOf(provider.id, release.id)).confirmed_assertions]).toEqual([200, 'rejected', 0]);
  });

  it('refuses an assertion of a published release (409 release_published)', async () => {
    const { url, etag } = await pending({ status: 'published' });
    expect((await review(url, 'reject', etag)).status).toBe(409);
  });
});
