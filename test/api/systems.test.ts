import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import { fixtures, startApi, type Api } from '../support/api.js';

let api: Api;
let op: Awaited<ReturnType<typeof fixtures.operator>>;

beforeAll(async () => {
  api = await startApi({ SYSTEM_LICENCE_LIMIT: '6' });
  op = await fixtures.operator();
});
afterAll(() => api.stop());

const base = (org = op.organisationId) => `/api/v1/organisations/${org}/systems`;
const create = (body: unknown, token = op.org, org = op.organisationId, key = newUlid()) =>
  api.request('POST', base(org), { token, body, headers: { 'Idempotency-Key': key } });

describe('createSystem', () => {
  it('creates a system with its short code in upper case, an ETag and a Location', async () => {
    const res = await create({ name: 'Human Resources', short_code: 'hr-sys', description: 'People data' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      name: 'Human Resources',
      short_code: 'HR-SYS',
      description: 'People data',
      organisation_id: op.organisationId,
      redacted_fields: [],
    });
    expect(res.headers.get('location')).toBe(`${base()}/${res.body.data.id}`);
    expect(res.headers.get('etag')).toMatch(/^"1-/);
  });

  it('answers 409 short_code_taken when the code is in use, whatever its case', async () => {
    await create({ name: 'Finance', short_code: 'FIN' });
    const res = await create({ name: 'Finance Two', short_code: 'fin' });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('short_code_taken');
  });

  it('lets another organisation use the same short code', async () => {
    const other = await fixtures.operator();
    await create({ name: 'A', short_code: 'SAME' });
    expect((await create({ name: 'B', short_code: 'SAME' }, other.org, other.organisationId)).status).toBe(201);
  });

  it('replays for the same key and payload', async () => {
    const key = newUlid();
    const first = await create({ name: 'Replay', short_code: 'RPL' }, op.org, op.organisationId, key);
    const again = await create({ name: 'Replay', short_code: 'RPL' }, op.org, op.organisationId, key);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
  });

  it.each([
    ['a blank name', { name: ' ', short_code: 'OK' }, '/name'],
    ['a one-character short code', { name: 'N', short_code: 'X' }, '/short_code'],
    ['a short code with spaces', { name: 'N', short_code: 'A B' }, '/short_code'],
    ['an unknown property', { name: 'N', short_code: 'OK2', owner: 'me' }, '/owner'],
  ])('answers 422 for %s', async (_label, body, pointer) => {
    const res = await create(body);
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
  });

  it('answers 403 licence_limit_reached beyond the organisation system licence', async () => {
    const small = await fixtures.operator();
    for (let i = 0; i < 6; i++) expect((await create({ name: `S${i}`, short_code: `S${i}X` }, small.org, small.organisationId)).status).toBe(201);
    const res = await create({ name: 'One too many', short_code: 'S9X' }, small.org, small.organisationId);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('licence_limit_reached');
  });
});

describe('listSystems', () => {
  it('lists full identities with hierarchy authority, with total and paging', async () => {
    const actor = await fixtures.operator();
    for (const code of ['L1', 'L2', 'L3']) await create({ name: code, short_code: code, description: 'd' }, actor.org, actor.organisationId);
    const res = await api.request('GET', `${base(actor.organisationId)}?page[size]=2`, { token: actor.org });
    expect(res.body.meta).toMatchObject({ total: 3, page_size: 2 });
    expect(res.body.data.map((s: { short_code: string }) => s.short_code)).toEqual(['L1', 'L2']);
    expect(res.body.data[0]).toMatchObject({ description: 'd', redacted_fields: [] });
  });

  it('gives minimal discovery to view-projects plus manage-projects without hierarchy authority', async () => {
    const actor = await fixtures.operator();
    await create({ name: 'Hidden detail', short_code: 'HD', description: 'secret' }, actor.org, actor.organisationId);
    const token = await fixtures.token(actor.userId, 'organisation', { organisationId: actor.organisationId, abilities: ['view-projects', 'manage-projects'] });
    const res = await api.request('GET', base(actor.organisationId), { token });
    expect(res.status).toBe(200);
    expect(res.body.data[0]).toEqual({
      id: expect.any(String),
      organisation_id: actor.organisationId,
      name: 'Hidden detail',
      short_code: 'HD',
      redacted_fields: ['description', 'created_at', 'updated_at'],
    });
  });

  it('answers an empty page far beyond the end', async () => {
    const res = await api.request('GET', `${base()}?page[number]=100000000&page[size]=100`, { token: op.org });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
  });

  it('refuses view-projects alone (403)', async () => {
    const token = await fixtures.token(op.userId, 'organisation', { organisationId: op.organisationId, abilities: ['view-projects'] });
    expect((await api.request('GET', base(), { token })).status).toBe(403);
  });
});

describe('getSystem and updateSystem', () => {
  // An organisation of its own, clear of the licence limit the create tests use up.
  beforeAll(async () => {
    op = await fixtures.operator();
  });

  it('reads, then edits with If-Match, moving the short code', async () => {
    const created = await create({ name: 'Edit me', short_code: 'EDT' });
    const path = `${base()}/${created.body.data.id}`;
    const read = await api.request('GET', path, { token: op.org });
    expect(read.headers.get('etag')).toBe(created.headers.get('etag'));
    const res = await api.request('PATCH', path, {
      token: op.org,
      body: { short_code: 'edt2', description: null },
      headers: { 'If-Match': read.headers.get('etag')! },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ short_code: 'EDT2', description: null });
    expect((await create({ name: 'Reuse old code', short_code: 'EDT' })).status).toBe(201);
  });

  it('answers 409 when the new short code is taken, and 412 for a stale ETag', async () => {
    await create({ name: 'Holder', short_code: 'HOLD' });
    const mine = await create({ name: 'Mine', short_code: 'MINE' });
    const path = `${base()}/${mine.body.data.id}`;
    const etag = mine.headers.get('etag')!;
    expect((await api.request('PATCH', path, { token: op.org, body: { short_code: 'hold' }, headers: { 'If-Match': etag } })).status).toBe(409);
    expect((await api.request('PATCH', path, { token: op.org, body: { name: 'Renamed' }, headers: { 'If-Match': etag } })).status).toBe(200);
    expect((await api.request('PATCH', path, { token: op.org, body: { name: 'Again' }, headers: { 'If-Match': etag } })).status).toBe(412);
  });

  it('answers 404 for an unknown system and for a system of another organisation', async () => {
    expect((await api.request('GET', `${base()}/${newUlid()}`, { token: op.org })).status).toBe(404);
    const other = await fixtures.operator();
    const theirs = await create({ name: 'Theirs', short_code: 'THEIRS' }, other.org, other.organisationId);
    expect((await api.request('GET', `${base()}/${theirs.body.data.id}`, { token: op.org })).status).toBe(404);
  });
});
