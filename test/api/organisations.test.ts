import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import { fixtures, startApi, type Api } from '../support/api.js';

let api: Api;
let op: Awaited<ReturnType<typeof fixtures.operator>>;

beforeAll(async () => {
  api = await startApi({ ORGANISATION_LICENCE_LIMIT: '1000' });
  op = await fixtures.operator();
});
afterAll(() => api.stop());

const create = (body: unknown, key = newUlid(), token = op.admin) =>
  api.request('POST', '/api/v1/organisations', { token, body, headers: { 'Idempotency-Key': key } });

describe('createOrganisation', () => {
  it('creates an organisation with a canonical time zone, slug, ETag and Location', async () => {
    const res = await create({ name: 'Acme Security', timezone: 'australia/perth' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ name: 'Acme Security', timezone: 'Australia/Perth', contact_email: null, notes: null });
    expect(res.body.data.slug).toMatch(/^acme-security/);
    expect(res.headers.get('etag')).toMatch(/^"1-[0-9a-f]{20}"$/);
    expect(res.headers.get('location')).toBe(`/api/v1/organisations/${res.body.data.id}`);
    expect(res.headers.get('idempotency-replayed')).toBe('false');
  });

  it('replays the first response for the same key and payload', async () => {
    const key = newUlid();
    const first = await create({ name: 'Replay Co', timezone: 'UTC' }, key);
    const second = await create({ timezone: 'UTC', name: 'Replay Co' }, key);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotency-replayed')).toBe('true');
    expect(second.body.data).toEqual(first.body.data);
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
  });

  it('answers 409 when the key is reused with another payload', async () => {
    const key = newUlid();
    await create({ name: 'First Payload', timezone: 'UTC' }, key);
    const res = await create({ name: 'Second Payload', timezone: 'UTC' }, key);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('idempotency_key_reused');
  });

  it('answers 409 when the key is reused with another credential of the same actor', async () => {
    const key = newUlid();
    await create({ name: 'Token One', timezone: 'UTC' }, key);
    const otherToken = await fixtures.token(op.userId, 'administration');
    const res = await create({ name: 'Token One', timezone: 'UTC' }, key, otherToken);
    expect(res.status).toBe(409);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['over 255 characters', 'k'.repeat(256)],
  ])('answers 400 when the Idempotency-Key is %s', async (_label, key) => {
    const headers: Record<string, string> = key === undefined ? {} : { 'Idempotency-Key': key };
    const res = await api.request('POST', '/api/v1/organisations', { token: op.admin, body: { name: 'No Key', timezone: 'UTC' }, headers });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('idempotency_key_invalid');
  });

  it('answers 422 with pointers for a blank name, an unknown time zone and an unknown property', async () => {
    const res = await create({ name: '  ', timezone: 'Mars/Olympus', members: [] });
    expect(res.status).toBe(422);
    const pointers = res.body.errors.map((e: { pointer: string }) => e.pointer).sort();
    expect(pointers).toEqual(['/members', '/name', '/timezone']);
  });

  it('answers 415 for a body that is not application/json', async () => {
    const res = await api.request('POST', '/api/v1/organisations', {
      token: op.admin,
      rawBody: 'name=x',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Idempotency-Key': newUlid() },
    });
    expect(res.status).toBe(415);
  });

  it('answers 400 for malformed JSON', async () => {
    const res = await api.request('POST', '/api/v1/organisations', {
      token: op.admin,
      rawBody: '{"name": ',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': newUlid() },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('malformed_json');
  });

  it('gives a clashing name a distinct slug', async () => {
    const a = await create({ name: 'Same Name', timezone: 'UTC' });
    const b = await create({ name: 'Same Name', timezone: 'UTC' });
    expect(a.body.data.slug).not.toBe(b.body.data.slug);
  });

  it('refuses an organisation token (401)', async () => {
    const res = await create({ name: 'Wrong Type', timezone: 'UTC' }, newUlid(), op.org);
    expect(res.status).toBe(401);
  });
});

describe('getOrganisation', () => {
  it('returns the identity with an ETag to the organisation credential', async () => {
    const res = await api.request('GET', `/api/v1/organisations/${op.organisationId}`, { token: op.org });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(op.organisationId);
    expect(res.headers.get('etag')).toMatch(/^"\d+-/);
    expect(res.body.meta.request_id).toBe(res.headers.get('x-request-id'));
  });

  it('returns an organisation the Administration actor created', async () => {
    const created = await create({ name: 'Visible Org', timezone: 'UTC' });
    const res = await api.request('GET', `/api/v1/organisations/${created.body.data.id}`, { token: op.admin });
    expect(res.status).toBe(200);
  });

  it('hides an organisation the Administration actor cannot see (404)', async () => {
    const stranger = await fixtures.user();
    const hidden = await fixtures.organisation(stranger);
    const res = await api.request('GET', `/api/v1/organisations/${hidden}`, { token: op.admin });
    expect(res.status).toBe(404);
  });

  it('answers 404 to an organisation credential for another organisation', async () => {
    const other = await fixtures.organisation(op.userId);
    const res = await api.request('GET', `/api/v1/organisations/${other}`, { token: op.org });
    expect(res.status).toBe(404);
  });

  it('answers 422 for an identifier that is not a ULID', async () => {
    const res = await api.request('GET', '/api/v1/organisations/not-a-ulid', { token: op.admin });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].pointer).toBe('/path/organisation');
  });
});

describe('listOrganisations', () => {
  it('lists only organisations the actor may see, oldest first, with pagination meta', async () => {
    const actor = await fixtures.operator();
    const stranger = await fixtures.user();
    await fixtures.organisation(stranger);
    for (const name of ['Charlie', 'Alpha', 'Bravo']) {
      await create({ name, timezone: 'UTC' }, newUlid(), actor.admin);
    }
    const res = await api.request('GET', '/api/v1/organisations?page[size]=2&page[number]=1', { token: actor.admin });
    expect(res.status).toBe(200);
    expect(res.body.meta).toMatchObject({ total: 4, current_page: 1, page_size: 2 });
    expect(res.body.data.map((o: { name: string }) => o.name)).toEqual([expect.stringMatching(/^Organisation /), 'Charlie']);
    const page2 = await api.request('GET', '/api/v1/organisations?page[size]=2&page[number]=2', { token: actor.admin });
    expect(page2.body.data.map((o: { name: string }) => o.name)).toEqual(['Alpha', 'Bravo']);
  });

  it('defaults to 50 a page', async () => {
    const res = await api.request('GET', '/api/v1/organisations', { token: op.admin });
    expect(res.body.meta.page_size).toBe(50);
    expect(res.body.meta.current_page).toBe(1);
  });

  it.each(['page[size]=0', 'page[size]=101', 'page[number]=0', 'page[number]=abc', 'page[size]=1.5', 'unknown=1'])('answers 422 for %s', async (query) => {
    const res = await api.request('GET', `/api/v1/organisations?${query}`, { token: op.admin });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].pointer).toMatch(/^\/query\//);
  });
});

describe('updateOrganisation', () => {
  const read = async () => api.request('GET', `/api/v1/organisations/${op.organisationId}`, { token: op.org });
  const patch = (body: unknown, etag: string | null | undefined) =>
    api.request('PATCH', `/api/v1/organisations/${op.organisationId}`, { token: op.org, body, headers: etag ? { 'If-Match': etag } : {} });

  it('merges the patch: omitted keeps, null clears, and the ETag changes', async () => {
    const before = await read();
    const set = await patch({ contact_email: 'sec@example.com', notes: 'hello' }, before.headers.get('etag'));
    expect(set.status).toBe(200);
    expect(set.body.data).toMatchObject({ contact_email: 'sec@example.com', notes: 'hello', name: before.body.data.name });
    const cleared = await patch({ notes: null }, set.headers.get('etag'));
    expect(cleared.body.data).toMatchObject({ contact_email: 'sec@example.com', notes: null });
    expect(cleared.headers.get('etag')).not.toBe(set.headers.get('etag'));
  });

  it('answers 428 without If-Match', async () => {
    const res = await patch({ notes: 'x' }, undefined);
    expect(res.status).toBe(428);
  });

  it('answers 412 for a stale ETag and changes nothing', async () => {
    const before = await read();
    await patch({ notes: 'fresh' }, before.headers.get('etag'));
    const stale = await patch({ notes: 'stale' }, before.headers.get('etag'));
    expect(stale.status).toBe(412);
    expect((await read()).body.data.notes).toBe('fresh');
  });

  it('answers 422 for null on a non-nullable property', async () => {
    const res = await patch({ name: null }, (await read()).headers.get('etag'));
    expect(res.status).toBe(422);
    expect(res.body.errors[0].pointer).toBe('/name');
  });

  it('answers 415 for application/json instead of merge-patch', async () => {
    const res = await api.request('PATCH', `/api/v1/organisations/${op.organisationId}`, {
      token: op.org,
      body: { notes: 'x' },
      contentType: 'application/json',
      headers: { 'If-Match': (await read()).headers.get('etag')! },
    });
    expect(res.status).toBe(415);
  });

  it('changes the slug when it is free and answers 409 when another organisation holds it', async () => {
    const taken = (await create({ name: `Slug Holder ${newUlid()}`, timezone: 'UTC' })).body.data.slug;
    const mine = `mine-${newUlid().toLowerCase().slice(-10)}`;
    const ok = await patch({ slug: mine }, (await read()).headers.get('etag'));
    expect(ok.body.data.slug).toBe(mine);
    const clash = await patch({ slug: taken }, ok.headers.get('etag'));
    expect(clash.status).toBe(409);
    expect(clash.body.code).toBe('slug_taken');
  });

  it('refuses an Administration credential (401)', async () => {
    const res = await api.request('PATCH', `/api/v1/organisations/${op.organisationId}`, {
      token: op.admin,
      body: { notes: 'x' },
      headers: { 'If-Match': '"1-00000000000000000000"' },
    });
    expect(res.status).toBe(401);
  });
});
