import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { permissionsOf } from '../../lib/domain/permissions.js';
import { REGISTER_DEFINITION_IDS as IDS } from '../../lib/domain/registers.js';
import { ddb, tableName } from '../../lib/store/client.js';
import { keys } from '../../lib/store/keys.js';
import { auditRecords } from '../support/audit.js';
import { fixtures, startApi, type Api } from '../support/api.js';

let api: Api;
let op: Awaited<ReturnType<typeof fixtures.operator>>;
let systemA: string;
let systemB: string;
let contactA: string;
let contactB: string;
let noContacts: string;

const HIGH = '1000000';
const LIMITS = [
  'API_READ_RATE_LIMIT_PER_MINUTE',
  'API_ACTOR_READ_RATE_LIMIT_PER_MINUTE',
  'API_ORGANISATION_READ_RATE_LIMIT_PER_MINUTE',
  'API_MUTATION_RATE_LIMIT_PER_MINUTE',
  'API_ACTOR_MUTATION_RATE_LIMIT_PER_MINUTE',
  'API_ORGANISATION_MUTATION_RATE_LIMIT_PER_MINUTE',
];

const orgPath = (org = op.organisationId) => `/api/v1/organisations/${org}`;
const registers = (system = systemA, org = op.organisationId) => `${orgPath(org)}/systems/${system}/registers`;
const rows = (definition: string, system = systemA, org = op.organisationId) => `${registers(system, org)}/${definition}/rows`;
const post = (path: string, body: unknown, token = op.org, key = newUlid()) => api.request('POST', path, { token, body, headers: { 'Idempotency-Key': key } });
const patch = (path: string, body: unknown, etag: string | null, token = op.org) =>
  api.request('PATCH', path, { token, body, headers: etag ? { 'If-Match': etag } : {} });
const get = (path: string, token = op.org) => api.request('GET', path, { token });
const asset = (tag: string, extra: Record<string, unknown> = {}) => ({ data: { asset_tag: tag, name: `Asset ${tag}`, ...extra } });
const tokenWith = (abilities: string[], readOnly = false) =>
  fixtures.token(op.userId, 'organisation', { organisationId: op.organisationId, abilities, readOnly });

beforeAll(async () => {
  api = await startApi(Object.fromEntries(LIMITS.map((name) => [name, HIGH])));
  op = await fixtures.operator();
  const system = async (code: string) => (await post(`${orgPath()}/systems`, { name: code, short_code: code })).body.data.id as string;
  systemA = await system('REGA');
  systemB = await system('REGB');
  contactA = (await post(`${orgPath()}/systems/${systemA}/contacts`, { name: 'Ada' })).body.data.id;
  contactB = (await post(`${orgPath()}/systems/${systemB}/contacts`, { name: 'Bob' })).body.data.id;
  noContacts = await tokenWith(['view-registers', 'manage-registers']);
});
afterAll(() => api.stop());

describe('listSystemRegisters and getSystemRegister', () => {
  it('lists the system-owned manual definitions and the shared organisation register', async () => {
    const res = await get(registers());
    expect(res.status).toBe(200);
    expect(res.body.data.map((d: { key: string; owner: string }) => [d.key, d.owner])).toEqual([
      ['asset-register', 'system'],
      ['third-party-register', 'system'],
      ['contacts-directory', 'organisation'],
    ]);
    expect(res.body.data.every((d: { writable: boolean; kind: string }) => d.writable && d.kind === 'manual')).toBe(true);
  });

  it('reads a manifest with column types, required columns, enums and the logical key', async () => {
    const res = await get(`${registers()}/${IDS.assetRegister}`);
    expect(res.body.data).toMatchObject({
      id: IDS.assetRegister,
      key: 'asset-register',
      logical_key: ['asset_tag'],
      enums: { classification: ['NC', 'OS', 'P', 'S', 'TS'] },
    });
    expect(res.body.data.columns).toContainEqual({ id: 'asset_tag', label: 'Asset tag', type: 'string', required: true, enum_id: null, max_length: 64 });
    expect(res.body.data.columns).toContainEqual(expect.objectContaining({ id: 'classification', type: 'enum', enum_id: 'classification', required: false }));
  });

  it('hints writable false without manage-registers or on a read-only credential', async () => {
    for (const token of [await tokenWith(['view-registers']), await tokenWith(['view-registers', 'manage-registers'], true)]) {
      expect((await get(`${registers()}/${IDS.thirdPartyRegister}`, token)).body.data.writable).toBe(false);
    }
  });

  it.each([
    ['a generated definition', IDS.controlSummary],
    ['a project-owned definition', IDS.riskRegister],
    ['an unknown definition', newUlid()],
  ])('answers 404 for %s, for the manifest and its rows', async (_label, definition) => {
    expect((await get(`${registers()}/${definition}`)).status).toBe(404);
    expect((await get(rows(definition))).status).toBe(404);
    expect((await post(rows(definition), { data: {} })).status).toBe(404);
  });

  it('answers 404 for a system of another organisation', async () => {
    expect((await get(registers(newUlid()))).status).toBe(404);
  });
});

describe('system register rows', () => {
  it('creates a row with Location and ETag, control and document columns redacted, and reads it back', async () => {
    const res = await post(rows(IDS.assetRegister), asset('AT-100', { classification: 'OS' }));
    expect(res.status).toBe(201);
    expect(res.headers.get('idempotency-replayed')).toBe('false');
    const row = res.body.data;
    expect(row).toMatchObject({ definition_id: IDS.assetRegister, owner: 'system', redacted_fields: ['related_control', 'supporting_document'] });
    expect(row.data).toEqual({
      asset_tag: 'AT-100',
      name: 'Asset AT-100',
      asset_type: null,
      location: null,
      owner_contact: null,
      classification: 'OS',
      notes: null,
      decommissioned_on: null,
    });
    expect(res.headers.get('location')).toBe(`${rows(IDS.assetRegister)}/${row.id}`);
    const read = await get(`${rows(IDS.assetRegister)}/${row.id}`);
    expect(read.body.data).toEqual(row);
    expect(read.headers.get('etag')).toBe(res.headers.get('etag'));
    const audit = (await auditRecords(op.organisationId)).find((r) => r.request_id === res.headers.get('x-request-id'));
    expect(audit).toMatchObject({ kind: 'CREATE_SYSTEM_REGISTER_ROW', target: { definition: IDS.assetRegister, row: row.id } });
  });

  it('replays a create for the same key and payload, and answers 409 for another payload', async () => {
    const key = newUlid();
    const first = await post(rows(IDS.assetRegister), asset('AT-200'), op.org, key);
    const again = await post(rows(IDS.assetRegister), asset('AT-200'), op.org, key);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
    const other = await post(rows(IDS.assetRegister), asset('AT-201'), op.org, key);
    expect([other.status, other.body.code]).toEqual([409, 'idempotency_key_reused']);
  });

  it('needs an Idempotency-Key to create (400)', async () => {
    expect((await api.request('POST', rows(IDS.assetRegister), { token: op.org, body: asset('AT-300') })).status).toBe(400);
  });

  it('lists rows oldest first with a total from the counter and paging', async () => {
    const actor = await fixtures.operator();
    const system = (await post(`${orgPath(actor.organisationId)}/systems`, { name: 'L', short_code: 'LST' }, actor.org)).body.data.id;
    const path = rows(IDS.thirdPartyRegister, system, actor.organisationId);
    for (const name of ['One', 'Two', 'Three']) expect((await post(path, { data: { supplier_name: name } }, actor.org)).status).toBe(201);
    const page = await get(`${path}?page[size]=2&page[number]=2`, actor.org);
    expect(page.body.meta).toMatchObject({ total: 3, current_page: 2, page_size: 2 });
    expect(page.body.data.map((r: { data: { supplier_name: string } }) => r.data.supplier_name)).toEqual(['Three']);
    expect((await get(path, actor.org)).body.data.map((r: { data: { supplier_name: string } }) => r.data.supplier_name)).toEqual(['One', 'Two', 'Three']);
  });

  it('merges a patch per column with If-Match: omitted keeps, null clears; a stale ETag is 412, none is 428', async () => {
    const created = await post(rows(IDS.assetRegister), asset('AT-400', { location: 'Canberra', notes: 'rack 4' }));
    const path = `${rows(IDS.assetRegister)}/${created.body.data.id}`;
    const res = await patch(path, { data: { location: null, asset_type: 'hardware' } }, created.headers.get('etag'));
    expect(res.status).toBe(200);
    expect(res.body.data.data).toMatchObject({ asset_tag: 'AT-400', location: null, asset_type: 'hardware', notes: 'rack 4' });
    expect(res.headers.get('etag')).toMatch(/^"2-/);
    expect((await patch(path, { data: { notes: 'x' } }, created.headers.get('etag'))).status).toBe(412);
    expect((await patch(path, { data: { notes: 'x' } }, null)).status).toBe(428);
  });

  it('answers 404 for a row through another system or another definition', async () => {
    const created = await post(rows(IDS.assetRegister), asset('AT-500'));
    expect((await get(`${rows(IDS.assetRegister, systemB)}/${created.body.data.id}`)).status).toBe(404);
    expect((await get(`${rows(IDS.thirdPartyRegister)}/${created.body.data.id}`)).status).toBe(404);
  });

  it.each([
    ['a wrong type', { asset_tag: 5, name: 'n' }, '/data/asset_tag'],
    ['an unknown column', { asset_tag: 'V1', name: 'n', colour: 'red' }, '/data/colour'],
    ['a value outside the enum', { asset_tag: 'V2', name: 'n', classification: 'SECRET' }, '/data/classification'],
    ['a missing required column', { asset_tag: 'V3' }, '/data/name'],
    ['an invalid date', { asset_tag: 'V4', name: 'n', decommissioned_on: '2025-02-30' }, '/data/decommissioned_on'],
    ['a contact that is not a ULID', { asset_tag: 'V5', name: 'n', owner_contact: 'ada' }, '/data/owner_contact'],
  ])('answers 422 on create for %s, pointing at it', async (_label, data, pointer) => {
    const res = await post(rows(IDS.assetRegister), { data });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual([pointer]);
  });

  it('answers 422 on patch for null on a required column, a wrong type and an empty patch', async () => {
    const created = await post(rows(IDS.thirdPartyRegister), { data: { supplier_name: 'Patchable' } });
    const path = `${rows(IDS.thirdPartyRegister)}/${created.body.data.id}`;
    const etag = created.headers.get('etag');
    const pointers = async (data: unknown) => (await patch(path, { data }, etag)).body.errors.map((e: { pointer: string }) => e.pointer);
    expect(await pointers({ supplier_name: null })).toEqual(['/data/supplier_name']);
    expect(await pointers({ privileged_access: 'yes', risk_rating: 'severe' })).toEqual(['/data/privileged_access', '/data/risk_rating']);
    expect(await pointers({})).toEqual(['/data']);
  });

  it('answers 422 logical_key_taken at the key column for a taken key on create, ignoring case and spacing', async () => {
    await post(rows(IDS.assetRegister), asset('DUP-1'));
    const res = await post(rows(IDS.assetRegister), asset('  dup-1 '));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/data/asset_tag', code: 'logical_key_taken' })]);
    expect((await post(rows(IDS.assetRegister, systemB), asset('DUP-1'))).status).toBe(201);
  });

  it('answers 422 logical_key_taken on an update to a taken key, and frees the old key when it moves', async () => {
    await post(rows(IDS.assetRegister), asset('MOVE-TAKEN'));
    const created = await post(rows(IDS.assetRegister), asset('MOVE-FROM'));
    const path = `${rows(IDS.assetRegister)}/${created.body.data.id}`;
    const clash = await patch(path, { data: { asset_tag: 'move-taken' } }, created.headers.get('etag'));
    expect([clash.status, clash.body.errors[0].code]).toEqual([422, 'logical_key_taken']);
    expect((await patch(path, { data: { asset_tag: 'MOVE-TO' } }, created.headers.get('etag'))).status).toBe(200);
    expect((await post(rows(IDS.assetRegister), asset('MOVE-FROM'))).status).toBe(201);
    expect((await post(rows(IDS.assetRegister), asset('MOVE-TO'))).status).toBe(422);
  });

  it('refuses to set control and document references at system level (422 unreadable_reference)', async () => {
    const res = await post(rows(IDS.assetRegister), asset('REF-1', { related_control: 'ISM-1234', supporting_document: 'ssp' }));
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { pointer: string; code: string }) => [e.pointer, e.code])).toEqual([
      ['/data/related_control', 'unreadable_reference'],
      ['/data/supporting_document', 'unreadable_reference'],
    ]);
  });

  it('answers 403 without manage-registers or on a read-only credential, and reads with view-registers', async () => {
    const viewer = await tokenWith(['view-registers', 'view-contacts']);
    const created = await post(rows(IDS.assetRegister), asset('PERM-1'));
    expect((await post(rows(IDS.assetRegister), asset('PERM-2'), viewer)).status).toBe(403);
    expect((await patch(`${rows(IDS.assetRegister)}/${created.body.data.id}`, { data: { notes: 'n' } }, created.headers.get('etag'), viewer)).status).toBe(403);
    expect((await post(rows(IDS.assetRegister), asset('PERM-3'), await tokenWith(['view-registers', 'manage-registers'], true))).status).toBe(403);
    expect((await get(`${rows(IDS.assetRegister)}/${created.body.data.id}`, viewer)).status).toBe(200);
  });
});

describe('contact references', () => {
  it('accepts an active contact of the same system', async () => {
    const res = await post(rows(IDS.assetRegister), asset('C-1', { owner_contact: contactA }));
    expect(res.status).toBe(201);
    expect(res.body.data.data.owner_contact).toBe(contactA);
  });

  it('answers 422 invalid_reference for a contact of another system, a deleted contact and an unknown one', async () => {
    const deleted = (await post(`${orgPath()}/systems/${systemA}/contacts`, { name: 'Gone' })).body.data.id;
    await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.contact(systemA, deleted),
        UpdateExpression: 'SET #s = :d',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':d': 'deleted' },
      }),
    );
    for (const [i, contact] of [contactB, deleted, newUlid()].entries()) {
      const res = await post(rows(IDS.assetRegister), asset(`C-BAD-${i}`, { owner_contact: contact }));
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/data/owner_contact', code: 'invalid_reference' })]);
    }
  });

  it('needs view-contacts to set or clear a contact (422 unreadable_reference)', async () => {
    const res = await post(rows(IDS.thirdPartyRegister), { data: { supplier_name: 'No view', contact: contactA } }, noContacts);
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/data/contact', code: 'unreadable_reference' })]);
    const created = await post(rows(IDS.thirdPartyRegister), { data: { supplier_name: 'No view 2' } }, noContacts);
    expect(created.body.data.redacted_fields).toEqual(['contact']);
    expect(
      (await patch(`${rows(IDS.thirdPartyRegister)}/${created.body.data.id}`, { data: { contact: null } }, created.headers.get('etag'), noContacts)).status,
    ).toBe(422);
  });

  it('redacts contacts without view-contacts, with an ETag of its own view that is validated against that view', async () => {
    const created = await post(rows(IDS.thirdPartyRegister), { data: { supplier_name: 'Redacted Co', contact: contactA } });
    const path = `${rows(IDS.thirdPartyRegister)}/${created.body.data.id}`;
    const redacted = await get(path, noContacts);
    expect(redacted.body.data.data).not.toHaveProperty('contact');
    expect(redacted.body.data.redacted_fields).toEqual(['contact']);
    expect(redacted.headers.get('etag')).not.toBe(created.headers.get('etag'));
    expect((await patch(path, { data: { notes: 'n' } }, created.headers.get('etag'), noContacts)).status).toBe(412);
    expect((await patch(path, { data: { notes: 'n' } }, redacted.headers.get('etag'), noContacts)).status).toBe(200);
    expect((await get(path)).body.data.data).toMatchObject({ contact: contactA, notes: 'n' });
  });

  it('re-applies redaction as of now when a create is replayed', async () => {
    const actor = await fixtures.operator();
    const system = (await post(`${orgPath(actor.organisationId)}/systems`, { name: 'R', short_code: 'RPL' }, actor.org)).body.data.id;
    const contact = (await post(`${orgPath(actor.organisationId)}/systems/${system}/contacts`, { name: 'Eve' }, actor.org)).body.data.id;
    const key = newUlid();
    const body = { data: { supplier_name: 'Replay Co', contact } };
    const path = rows(IDS.thirdPartyRegister, system, actor.organisationId);
    const first = await post(path, body, actor.org, key);
    expect(first.body.data.data.contact).toBe(contact);
    await fixtures.grant(
      actor.userId,
      { kind: 'organisation', id: actor.organisationId },
      permissionsOf('organisation').filter((p) => p !== 'view-contacts' && p !== 'manage-contacts'),
    );
    const replay = await post(path, body, actor.org, key);
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect(replay.body.data.data).not.toHaveProperty('contact');
    expect(replay.body.data.redacted_fields).toEqual(['contact']);
    expect(replay.headers.get('etag')).not.toBe(first.headers.get('etag'));
    expect(replay.headers.get('etag')).toBe((await get(`${path}/${first.body.data.id}`, actor.org)).headers.get('etag'));
  });
});

describe('the shared contacts directory', () => {
  it('keeps organisation-owned rows visible from every system of the organisation, unique across them', async () => {
    const entry = { data: { full_name: 'Grace Hopper', organisation_name: 'Navy', after_hours: true } };
    const created = await post(rows(IDS.contactsDirectory, systemA), entry);
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ owner: 'organisation', redacted_fields: [] });
    const fromB = await get(`${rows(IDS.contactsDirectory, systemB)}/${created.body.data.id}`);
    expect(fromB.body.data).toEqual(created.body.data);
    const list = await get(rows(IDS.contactsDirectory, systemB));
    expect(list.body.data.map((r: { id: string }) => r.id)).toContain(created.body.data.id);
    expect(list.body.meta.total).toBe(list.body.data.length);
    const dup = await post(rows(IDS.contactsDirectory, systemB), { data: { full_name: 'grace  hopper', organisation_name: 'NAVY' } });
    expect(dup.status).toBe(422);
    expect(dup.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/data/full_name', '/data/organisation_name']);
  });

  it('is not visible from another organisation', async () => {
    const other = await fixtures.operator();
    const system = (await post(`${orgPath(other.organisationId)}/systems`, { name: 'O', short_code: 'OTH' }, other.org)).body.data.id;
    const list = await get(rows(IDS.contactsDirectory, system, other.organisationId), other.org);
    expect(list.body).toMatchObject({ data: [], meta: { total: 0 } });
  });
});
