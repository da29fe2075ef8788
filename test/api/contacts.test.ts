import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import { deleteContactWrites, toContact } from '../../lib/store/contacts.js';
import { keys } from '../../lib/store/keys.js';
import { getOne } from '../../lib/store/read.js';
import { commit } from '../../lib/store/transact.js';
import { fixtures, startApi, type Api } from '../support/api.js';

let api: Api;
let op: Awaited<ReturnType<typeof fixtures.operator>>;
let systemId: string;

beforeAll(async () => {
  api = await startApi();
  op = await fixtures.operator();
  systemId = (
    await api.request('POST', `/api/v1/organisations/${op.organisationId}/systems`, {
      token: op.org,
      body: { name: 'CRM', short_code: 'CRM' },
      headers: { 'Idempotency-Key': newUlid() },
    })
  ).body.data.id;
});
afterAll(() => api.stop());

const base = (system = systemId) => `/api/v1/organisations/${op.organisationId}/systems/${system}/contacts`;
const create = (body: unknown, key = newUlid(), token = op.org) => api.request('POST', base(), { token, body, headers: { 'Idempotency-Key': key } });

describe('contacts', () => {
  it('creates a contact of the system with an ETag and a Location', async () => {
    const res = await create({ name: 'Ada Lovelace', role: 'System owner', email: 'ada@example.com' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ system_id: systemId, name: 'Ada Lovelace', role: 'System owner', email: 'ada@example.com', phone: null });
    expect(res.headers.get('location')).toBe(`${base()}/${res.body.data.id}`);
  });

  it('replays a create for the same key and answers 409 for another payload', async () => {
    const key = newUlid();
    const first = await create({ name: 'Grace Hopper' }, key);
    expect((await create({ name: 'Grace Hopper' }, key)).body.data).toEqual(first.body.data);
    expect((await create({ name: 'Someone Else' }, key)).status).toBe(409);
  });

  it('answers 422 for an invalid email, pointing at it', async () => {
    const res = await create({ name: 'Bad Email', email: 'not-an-email' });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].pointer).toBe('/email');
  });

  it('lists active contacts with a total and paging', async () => {
    const res = await api.request('GET', `${base()}?page[size]=1`, { token: op.org });
    expect(res.status).toBe(200);
    expect(res.body.meta.total).toBeGreaterThanOrEqual(2);
    expect(res.body.data).toHaveLength(1);
  });

  it('edits a contact with If-Match: null clears, omitted keeps', async () => {
    const created = await create({ name: 'Edit Contact', role: 'Analyst', phone: '+61 2 9999 0000' });
    const path = `${base()}/${created.body.data.id}`;
    const res = await api.request('PATCH', path, { token: op.org, body: { phone: null }, headers: { 'If-Match': created.headers.get('etag')! } });
    expect(res.body.data).toMatchObject({ phone: null, role: 'Analyst' });
    expect((await api.request('PATCH', path, { token: op.org, body: { role: 'Lead' }, headers: { 'If-Match': created.headers.get('etag')! } })).status).toBe(
      412,
    );
  });

  it('treats a deleted contact as absent, in reads, pages, totals and edits', async () => {
    const before = (await api.request('GET', `${base()}?page[size]=1`, { token: op.org })).body.meta.total;
    const created = await create({ name: 'To Be Deleted' });
    await commit(deleteContactWrites(toContact((await getOne(keys.contact(systemId, created.body.data.id)))!), new Date()));
    expect((await api.request('GET', `${base()}/${created.body.data.id}`, { token: op.org })).status).toBe(404);
    const list = await api.request('GET', `${base()}?page[size]=100`, { token: op.org });
    expect(list.body.data.map((c: { id: string }) => c.id)).not.toContain(created.body.data.id);
    expect(list.body.meta.total).toBe(before);
    expect(list.body.data).toHaveLength(before);
    const edit = await api.request('PATCH', `${base()}/${created.body.data.id}`, {
      token: op.org,
      body: { role: 'Back' },
      headers: { 'If-Match': created.headers.get('etag')! },
    });
    expect(edit.status).toBe(404);
  });

  it('answers 404 for a contact through another system of the organisation', async () => {
    const created = await create({ name: 'Belongs Here' });
    const other = (
      await api.request('POST', `/api/v1/organisations/${op.organisationId}/systems`, {
        token: op.org,
        body: { name: 'Other', short_code: 'OTH' },
        headers: { 'Idempotency-Key': newUlid() },
      })
    ).body.data.id;
    expect((await api.request('GET', `${base(other)}/${created.body.data.id}`, { token: op.org })).status).toBe(404);
  });

  it('needs manage-contacts to create (403) but only view-contacts to read', async () => {
    const token = await fixtures.token(op.userId, 'organisation', { organisationId: op.organisationId, abilities: ['view-contacts'] });
    expect((await create({ name: 'Nope' }, newUlid(), token)).status).toBe(403);
    expect((await api.request('GET', base(), { token })).status).toBe(200);
  });
});
