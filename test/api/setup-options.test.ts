import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtures, startApi, type Api } from '../support/api.js';
import { storedProvider, storedRelease } from '../support/providers.js';

let api: Api;

beforeAll(async () => {
  api = await startApi({ LICENSED_CLASSIFICATIONS: 'NC,OS,P,S' });
});
afterAll(() => api.stop());

describe('getSetupOptions', () => {
  it('offers the licensed classifications, scope choices, releases and provider assurance', async () => {
    const op = await fixtures.operator();
    const res = await api.request('GET', `/api/v1/organisations/${op.organisationId}/setup-options`, { token: op.org });
    expect(res.status).toBe(200);
    expect(res.body.data.classifications.map((c: { code: string }) => c.code)).toEqual(['NC', 'OS', 'P', 'S']);
    expect(res.body.data.scope_choices.essential_eight_targets.map((c: { value: string }) => c.value)).toEqual(['none', 'ML1', 'ML2', 'ML3']);
    expect(res.body.data.ism_releases).toEqual([]);
    expect(res.body.data.provider_assurance).toEqual({ providers: [] });
  });

  it('offers the published assurance releases of shared providers, without drafts', async () => {
    const op = await fixtures.operator();
    const provider = await storedProvider('Assured Cloud');
    const first = await storedRelease(provider.id);
    const second = await storedRelease(provider.id);
    await storedRelease(provider.id, { status: 'draft' });
    const res = await api.request('GET', `/api/v1/organisations/${op.organisationId}/setup-options`, { token: op.org });
    expect(res.body.data.provider_assurance.providers).toEqual([
      {
        id: provider.id,
        name: 'Assured Cloud',
        releases: [first, second].map((r) => ({ id: r.id, version: r.version, name: r.name, ism_version_id: r.ism_version_id, ism_version: r.ism_version })),
      },
    ]);
  });

  it('needs manage-projects as well as view-projects (403)', async () => {
    const op = await fixtures.operator();
    const token = await fixtures.token(op.userId, 'organisation', { organisationId: op.organisationId, abilities: ['view-projects'] });
    expect((await api.request('GET', `/api/v1/organisations/${op.organisationId}/setup-options`, { token })).status).toBe(403);
  });
});
