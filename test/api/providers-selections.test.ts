import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Release } from '../../lib/catalogue/store.js';
import type { Api } from '../support/api.js';
import { startProjectWorld, type World } from '../support/projects.js';
import { storedProvider, storedRelease } from '../support/providers.js';
import { draftReleaseThroughApi } from '../support/provider-artefacts.js';

let api: Api;
let ism: Release;
let world: World;

beforeAll(async () => {
  ({ api, release: ism, world } = await startProjectWorld());
});
afterAll(() => api.stop());

const PROVIDERS = '/api/v1/external-providers';

/** A provider and a release made through the API, published unless asked not to. */
async function release(options: { publish?: boolean } = { publish: true }) {
  const created = await draftReleaseThroughApi(api, world.op.admin, ism.id);
  const url = `${PROVIDERS}/${created.provider_id}/assurance-releases/${created.release_id}`;
  if (options.publish) await api.request('POST', `${url}/publish`, { token: world.op.admin, headers: { 'If-Match': created.etag }, body: {} });
  return { provider_id: created.provider_id, release_id: created.release_id };
}

async function saveSelections(projectUrl: string, provider_selections: unknown[]) {
  const etag = (await api.request('GET', `${projectUrl}/scope`, { token: world.op.org })).headers.get('etag')!;
  return api.request('PATCH', `${projectUrl}/scope`, { token: world.op.org, headers: { 'If-Match': etag }, body: { provider_selections } });
}

async function deleteProvider(providerId: string) {
  const etag = (await api.request('GET', `${PROVIDERS}/${providerId}`, { token: world.op.admin })).headers.get('etag')!;
  return api.request('DELETE', `${PROVIDERS}/${providerId}`, { token: world.op.admin, headers: { 'If-Match': etag } });
}

describe('provider selections in project scope', () => {
  it('select a published release', async () => {
    const p = await world.project();
    const selection = await release();
    const res = await saveSelections(p.url, [selection]);
    expect(res.status).toBe(200);
    expect(res.body.data.provider_selections).toEqual([selection]);
  });

  it('refuse a draft release (422 unknown_provider_release)', async () => {
    const p = await world.project();
    const res = await saveSelections(p.url, [await release({ publish: false })]);
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ pointer: '/provider_selections/0', code: 'unknown_provider_release' });
  });

  it('refuse a release named under another provider', async () => {
    const p = await world.project();
    const a = await release();
    const b = await release();
    const res = await saveSelections(p.url, [{ provider_id: b.provider_id, release_id: a.release_id }]);
    expect(res.status).toBe(422);
  });

  it('keep their provider from being deleted (409 provider_release_selected) until no scope selects it', async () => {
    const p = await world.project();
    const selection = await release();
    await saveSelections(p.url, [selection]);
    const refused = await deleteProvider(selection.provider_id);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('provider_release_selected');
    await saveSelections(p.url, []);
    expect((await deleteProvider(selection.provider_id)).status).toBe(200);
  });

  it('count a release a scope names twice once', async () => {
    const first = await world.project();
    const second = await world.project();
    const selection = await release();
    await saveSelections(first.url, [selection, selection]);
    await saveSelections(second.url, [selection]);
    await saveSelections(first.url, []);
    expect((await deleteProvider(selection.provider_id)).status).toBe(409);
    await saveSelections(second.url, []);
    expect((await deleteProvider(selection.provider_id)).status).toBe(200);
  });

  it('refuse a save that moves the counts of more providers than one transaction holds (422)', async () => {
    const p = await world.project();
    /** Fifty published releases, each of its own provider. */
    const many = async () => {
      const providers = await Promise.all(Array.from({ length: 50 }, () => storedProvider()));
      return Promise.all(providers.map(async (provider) => ({ provider_id: provider.id, release_id: (await storedRelease(provider.id)).id })));
    };
    expect((await saveSelections(p.url, await many())).status).toBe(200);
    const res = await saveSelections(p.url, await many());
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ pointer: '/provider_selections', code: 'too_many_selection_changes' });
  });

  it('no longer accept the releases of a deleted provider', async () => {
    const p = await world.project();
    const selection = await release();
    await deleteProvider(selection.provider_id);
    const res = await saveSelections(p.url, [selection]);
    expect(res.status).toBe(422);
    expect(res.body.errors[0].code).toBe('unknown_provider_release');
  });
});
