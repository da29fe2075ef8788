import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import { fixtures, startApi, type Api } from '../support/api.js';
import { GENEROUS_BUDGETS } from '../support/projects.js';
import { storedAssertion, storedProvider, storedRelease } from '../support/providers.js';

let api: Api;
let op: Awaited<ReturnType<typeof fixtures.operator>>;

beforeAll(async () => {
  api = await startApi(GENEROUS_BUDGETS);
  op = await fixtures.operator();
});
afterAll(() => api.stop());

const OPTIONS = '/api/v1/external-providers/options';
const options = (query = '', token = op.admin) => api.request('GET', `${OPTIONS}${query}`, { token });
const ids = (res: { body: { data: { release_id: string }[] } }) => res.body.data.map((o) => o.release_id);
/** A control identifier no other test asserts, so that each test reads its own index partition. */
const freshControl = () => `ism-${newUlid().slice(-8).toLowerCase()}`;

describe('listExternalProviderOptions', () => {
  it('lists published releases with their provider, and no drafts', async () => {
    const ismVersionId = newUlid();
    const provider = await storedProvider('Options Cloud');
    const published = await storedRelease(provider.id, { ismVersionId });
    await storedRelease(provider.id, { ismVersionId, status: 'draft' });
    const res = await options(`?ism_version_id=${ismVersionId}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      {
        provider_id: provider.id,
        provider_name: 'Options Cloud',
        release_id: published.id,
        name: published.name,
        version: published.version,
        ism_version_id: ismVersionId,
        ism_version: published.ism_version,
        assessed_on: published.assessed_on,
        valid_until: null,
        published_at: published.published_at,
      },
    ]);
    expect(res.body.meta.total).toBe(1);
  });

  it('counts every published release without filters', async () => {
    const before = (await options()).body.meta.total;
    const published = await storedRelease((await storedProvider()).id);
    await storedRelease((await storedProvider()).id, { status: 'draft' });
    const after = await options('?page[size]=100');
    expect(after.body.meta.total).toBe(before + 1);
    expect(ids(after)).toContain(published.id);
  });

  it('orders by ISM release, then provider, then release, and pages', async () => {
    const ismVersionId = newUlid();
    const first = await storedProvider();
    const second = await storedProvider();
    const a = await storedRelease(second.id, { ismVersionId });
    const b = await storedRelease(first.id, { ismVersionId });
    const c = await storedRelease(first.id, { ismVersionId });
    expect(ids(await options(`?ism_version_id=${ismVersionId}`))).toEqual([b.id, c.id, a.id]);
    const page = await options(`?ism_version_id=${ismVersionId}&page[number]=2&page[size]=2`);
    expect(ids(page)).toEqual([a.id]);
    expect(page.body.meta).toMatchObject({ total: 3, current_page: 2, page_size: 2 });
  });

  it('filters by control_id to releases with a confirmed assertion about it', async () => {
    const control = freshControl();
    const provider = await storedProvider();
    const confirmed = await storedRelease(provider.id);
    const pending = await storedRelease(provider.id);
    const rejected = await storedRelease(provider.id);
    await storedRelease(provider.id);
    await storedAssertion(confirmed, control, 'confirmed');
    await storedAssertion(pending, control, 'pending');
    await storedAssertion(rejected, control, 'rejected');
    const res = await options(`?control_id=${control}`);
    expect(ids(res)).toEqual([confirmed.id]);
    expect(res.body.meta.total).toBe(1);
  });

  it('matches control_id without regard to case', async () => {
    const control = freshControl();
    const release = await storedRelease((await storedProvider()).id);
    await storedAssertion(release, control);
    expect(ids(await options(`?control_id=${control.toUpperCase()}`))).toEqual([release.id]);
  });

  it('leaves out draft releases that assert the control', async () => {
    const control = freshControl();
    const draft = await storedRelease((await storedProvider()).id, { status: 'draft' });
    await storedAssertion(draft, control);
    expect((await options(`?control_id=${control}`)).body.meta.total).toBe(0);
  });

  it('drops a release whose assertion is no longer confirmed', async () => {
    const control = freshControl();
    const release = await storedRelease((await storedProvider()).id);
    const confirmed = await storedAssertion(release, control, 'confirmed');
    await storedAssertion(release, control, 'rejected', confirmed);
    expect((await options(`?control_id=${control}`)).body.data).toEqual([]);
  });

  it('combines control_id and ism_version_id, and pages the result', async () => {
    const control = freshControl();
    const ismVersionId = newUlid();
    const provider = await storedProvider();
    const releases = [
      await storedRelease(provider.id, { ismVersionId }),
      await storedRelease(provider.id, { ismVersionId }),
      await storedRelease(provider.id, { ismVersionId }),
      await storedRelease(provider.id),
    ];
    for (const r of releases) await storedAssertion(r, control);
    const res = await options(`?control_id=${control}&ism_version_id=${ismVersionId}&page[number]=2&page[size]=2`);
    expect(ids(res)).toEqual([releases[2]!.id]);
    expect(res.body.meta).toMatchObject({ total: 3, current_page: 2, page_size: 2 });
  });

  it('no longer lists the releases of a deleted provider', async () => {
    const control = freshControl();
    const ismVersionId = newUlid();
    const provider = await storedProvider();
    const release = await storedRelease(provider.id, { ismVersionId });
    await storedAssertion(release, control);
    const etag = (await api.request('GET', `/api/v1/external-providers/${provider.id}`, { token: op.admin })).headers.get('etag')!;
    expect((await api.request('DELETE', `/api/v1/external-providers/${provider.id}`, { token: op.admin, headers: { 'If-Match': etag } })).status).toBe(200);
    expect((await options(`?ism_version_id=${ismVersionId}`)).body).toMatchObject({ data: [], meta: { total: 0 } });
    expect((await options(`?control_id=${control}`)).body).toMatchObject({ data: [], meta: { total: 0 } });
  });

  it('answers 422 for an ism_version_id that is not a ULID and a control_id that is not an identifier', async () => {
    expect((await options('?ism_version_id=2025.12.9')).status).toBe(422);
    const res = await options('?control_id=ism%201691');
    expect(res.status).toBe(422);
    expect(res.body.errors[0].pointer).toBe('/query/control_id');
  });

  it('answers a read-only credential with manage-org-hierarchy alone', async () => {
    const readOnly = await fixtures.token(op.userId, 'administration', { readOnly: true, abilities: ['manage-org-hierarchy'] });
    expect((await options('', readOnly)).status).toBe(200);
  });

  it('refuses an organisation credential (401)', async () => {
    expect((await options('', op.org)).status).toBe(401);
  });
});
