import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import type { Release } from '../../lib/catalogue/store.js';
import { fixtures, type Api } from '../support/api.js';
import { startProjectWorld, type World } from '../support/projects.js';

let api: Api;
let release: Release;
let world: World;

beforeAll(async () => ({ api, release, world } = await startProjectWorld()));
afterAll(() => api.stop());

describe('createProject', () => {
  it('creates a Setup project with its setup ETag and location', async () => {
    const res = await world.create({ essential_eight_target: 'ML2' });
    expect(res.status).toBe(201);
    expect(res.headers.get('idempotency-replayed')).toBe('false');
    expect(res.headers.get('etag')).toMatch(/^"1-/);
    expect(res.headers.get('location')).toBe(`${world.base}/${res.body.data.id}`);
    expect(res.body.data).toMatchObject({
      system_id: world.systemId,
      ism_release: { id: release.id, version: release.version },
      classification: 'P',
      essential_eight_target: 'ML2',
      lifecycle_state: 'setup',
      archived: false,
      population: { run_id: null, status: 'not_started' },
      redacted_fields: [],
    });
  });

  it('replays the same request under the same key and refuses another payload under it', async () => {
    const key = newUlid();
    const first = await world.create({}, key);
    const again = await world.create({}, key);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body.data.id).toBe(first.body.data.id);
    expect((await world.create({ name: 'Other' }, key)).status).toBe(409);
  });

  it('needs an Idempotency-Key', async () => {
    const res = await api.request('POST', world.base, { token: world.op.org, body: { name: 'x', ism_release_id: release.id, classification: 'P' } });
    expect(res.status).toBe(400);
  });

  it('refuses a release that is not imported, with its pointer', async () => {
    const res = await world.create({ ism_release_id: newUlid() });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/ism_release_id', code: 'unknown_release' })]);
  });

  it('refuses a classification the organisation is not licensed for', async () => {
    const res = await world.create({ classification: 'TS' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/classification', code: 'classification_not_licensed' })]);
  });

  it('refuses a project under a system of another organisation (404)', async () => {
    const other = await fixtures.system(await fixtures.organisation(world.op.userId));
    const res = await api.request('POST', `/api/v1/organisations/${world.op.organisationId}/systems/${other}/projects`, {
      token: world.op.org,
      headers: { 'Idempotency-Key': newUlid() },
      body: { name: 'x', ism_release_id: release.id, classification: 'P' },
    });
    expect(res.status).toBe(404);
  });
});

describe('setup project views', () => {
  it('lists the system projects with a total', async () => {
    await world.project();
    const res = await api.request('GET', `${world.base}?page[size]=2`, { token: world.op.org });
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeLessThanOrEqual(2);
    expect(res.body.meta.total).toBeGreaterThanOrEqual(1);
  });

  it('redacts setup fields without manage-projects, with an ETag of that view', async () => {
    const p = await world.project();
    const token = await fixtures.token(world.op.userId, 'organisation', { organisationId: world.op.organisationId, abilities: ['view-projects'] });
    const res = await api.request('GET', p.url, { token });
    expect(res.status).toBe(200);
    expect(res.body.data.redacted_fields).toEqual(['description', 'control_workflow']);
    expect(res.body.data).not.toHaveProperty('description');
    expect(res.body.data.population).toEqual({ run_id: null, status: 'not_started' });
    expect(res.headers.get('etag')).not.toBe(p.etag);
  });

  it('needs project_edit_reason when the Essential Eight target changes', async () => {
    const p = await world.project();
    const res = await api.request('PATCH', p.url, { token: world.op.org, headers: { 'If-Match': p.etag }, body: { essential_eight_target: 'ML1' } });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].pointer).toBe('/project_edit_reason');
  });

  it('changes the target with a reason, and the old ETag no longer matches', async () => {
    const p = await world.project();
    const res = await api.request('PATCH', p.url, {
      token: world.op.org,
      headers: { 'If-Match': p.etag },
      body: { essential_eight_target: 'ML1', project_edit_reason: 'Client asked for ML1' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.essential_eight_target).toBe('ML1');
    expect((await api.request('PATCH', p.url, { token: world.op.org, headers: { 'If-Match': p.etag }, body: { name: 'Again' } })).status).toBe(412);
    expect((await api.request('PATCH', p.url, { token: world.op.org, body: { name: 'Again' } })).status).toBe(428);
  });

  it('lets only one of a setup change and a diagram upload sent with the same ETag succeed', async () => {
    const p = await world.project();
    const { form, png } = await import('../support/files.js');
    const [patched, uploaded] = await Promise.all([
      api.request('PATCH', p.url, { token: world.op.org, headers: { 'If-Match': p.etag }, body: { name: 'Renamed' } }),
      api.request('POST', `${p.url}/artefacts/network-diagram`, { token: world.op.org, headers: { 'If-Match': p.etag }, form: form(png(32, 32), 'd.png') }),
    ]);
    const outcomes = [patched.status === 200 ? 'won' : patched.status, uploaded.status === 202 ? 'won' : uploaded.status];
    expect(outcomes.filter((o) => o === 'won')).toHaveLength(1);
    expect(outcomes.filter((o) => o !== 'won')).toEqual([412]);
  });

  it('refuses fields fixed at creation', async () => {
    const p = await world.project();
    const res = await api.request('PATCH', p.url, { token: world.op.org, headers: { 'If-Match': p.etag }, body: { classification: 'NC' } });
    expect(res.status).toBe(422);
  });
});

describe('scope', () => {
  it('replaces the supplied data, keeps omitted selections and clears them with []', async () => {
    const p = await world.project();
    const url = `${p.url}/scope`;
    const first = await api.request('GET', url, { token: world.op.org });
    expect(first.body.data).toMatchObject({ data: {}, provider_selections: [] });
    const { publishedRelease } = await import('../support/projects.js');
    const selection = await publishedRelease();
    const saved = await api.request('PATCH', url, {
      token: world.op.org,
      headers: { 'If-Match': first.headers.get('etag')! },
      body: { data: { objectives: 'Annual assessment', wireless_networks: 'yes' }, provider_selections: [selection] },
    });
    expect(saved.status).toBe(200);
    const replaced = await api.request('PATCH', url, {
      token: world.op.org,
      headers: { 'If-Match': saved.headers.get('etag')! },
      body: { data: { in_scope: 'Payroll' } },
    });
    expect(replaced.body.data.data).toEqual({ in_scope: 'Payroll' });
    expect(replaced.body.data.provider_selections).toEqual([selection]);
    const cleared = await api.request('PATCH', url, {
      token: world.op.org,
      headers: { 'If-Match': replaced.headers.get('etag')! },
      body: { provider_selections: [] },
    });
    expect(cleared.body.data).toMatchObject({ data: { in_scope: 'Payroll' }, provider_selections: [] });
  });

  it('refuses a selection that is not a published assurance release', async () => {
    const p = await world.project();
    const etag = (await api.request('GET', `${p.url}/scope`, { token: world.op.org })).headers.get('etag')!;
    const res = await api.request('PATCH', `${p.url}/scope`, {
      token: world.op.org,
      headers: { 'If-Match': etag },
      body: { provider_selections: [{ provider_id: newUlid(), release_id: newUlid() }] },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ pointer: '/provider_selections/0', code: 'unknown_provider_release' });
  });

  it('refuses an end before the start', async () => {
    const p = await world.project();
    const etag = (await api.request('GET', `${p.url}/scope`, { token: world.op.org })).headers.get('etag')!;
    const res = await api.request('PATCH', `${p.url}/scope`, {
      token: world.op.org,
      headers: { 'If-Match': etag },
      body: { data: { planned_start: '2026-05-01', planned_end: '2026-04-01' } },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].pointer).toBe('/data/planned_end');
  });
});

describe('engagement', () => {
  it('merges per field, and hides setup-only fields without manage-projects', async () => {
    const p = await world.project();
    const url = `${p.url}/engagement`;
    const etag = (await api.request('GET', url, { token: world.op.org })).headers.get('etag')!;
    const saved = await api.request('PATCH', url, {
      token: world.op.org,
      headers: { 'If-Match': etag },
      body: { engagement_reference: 'ENG-1', internal_notes: 'fee agreed' },
    });
    expect(saved.status).toBe(200);
    const merged = await api.request('PATCH', url, {
      token: world.op.org,
      headers: { 'If-Match': saved.headers.get('etag')! },
      body: { lead_assessor_name: 'Sam' },
    });
    expect(merged.body.data).toMatchObject({ engagement_reference: 'ENG-1', internal_notes: 'fee agreed', lead_assessor_name: 'Sam', redacted_fields: [] });
    const viewer = await fixtures.token(world.op.userId, 'organisation', { organisationId: world.op.organisationId, abilities: ['view-projects'] });
    const limited = await api.request('GET', url, { token: viewer });
    expect(limited.body.data).not.toHaveProperty('internal_notes');
    expect(limited.body.data.redacted_fields).toEqual(['commercial_reference', 'internal_notes']);
  });
});
