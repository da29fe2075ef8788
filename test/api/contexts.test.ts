import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import { keys } from '../../lib/store/keys.js';
import { getOne } from '../../lib/store/read.js';
import { fixtures, startApi, type Api } from '../support/api.js';
import { auditRecords } from '../support/audit.js';

let api: Api;
let op: Awaited<ReturnType<typeof fixtures.operator>>;
let systemId: string;

beforeAll(async () => {
  api = await startApi({}, { jobs: 'manual' });
  op = await fixtures.operator();
  const created = await api.request('POST', `/api/v1/organisations/${op.organisationId}/systems`, {
    token: op.org,
    body: { name: 'Payroll', short_code: 'pay' },
    headers: { 'Idempotency-Key': newUlid() },
  });
  systemId = created.body.data.id;
});
afterAll(() => api.stop());

const orgContext = () => `/api/v1/organisations/${op.organisationId}/context`;
const sysContext = () => `/api/v1/organisations/${op.organisationId}/systems/${systemId}/context`;
const patch = (path: string, body: unknown, etag: string | null) =>
  api.request('PATCH', path, { token: op.org, body, headers: etag ? { 'If-Match': etag } : {} });

describe('organisation context', () => {
  it('returns the definition with field IDs, option values and version, and every field null at first', async () => {
    const res = await api.request('GET', orgContext(), { token: op.org });
    expect(res.status).toBe(200);
    expect(res.body.data.definition.version).toBe('2025.1');
    const outsourced = res.body.data.definition.fields.find((f: { id: string }) => f.id === 'outsourced_delivery');
    expect(outsourced.options.map((o: { value: string }) => o.value)).toEqual(['yes', 'no']);
    expect(res.body.data.data.outsourced_delivery).toBeNull();
    expect(res.headers.get('etag')).toMatch(/^"0-/);
  });

  it('merges per field, keeps the edit reason and actor in the audit trail, and changes the ETag', async () => {
    const first = await api.request('GET', orgContext(), { token: op.org });
    const a = await patch(
      orgContext(),
      { data: { outsourced_delivery: 'yes', industry_sector: 'health' }, edit_reason: 'Onboarding' },
      first.headers.get('etag'),
    );
    expect(a.status).toBe(200);
    const b = await patch(orgContext(), { data: { outsourced_delivery: null } }, a.headers.get('etag'));
    expect(b.body.data.data).toMatchObject({ outsourced_delivery: null, industry_sector: 'health' });
    expect(b.body.data.updated_by).toBe(op.userId);
    const record = (await auditRecords(op.organisationId)).find((r) => r.request_id === a.headers.get('x-request-id'));
    expect(record).toMatchObject({
      kind: 'UPDATE_ORGANISATION_CONTEXT',
      actor_id: op.userId,
      details: { edit_reason: 'Onboarding', changed_fields: 'industry_sector,outsourced_delivery' },
    });
  });

  it.each([
    ['data: null', { data: null }, '/data'],
    ['an option outside the definition', { data: { outsourced_delivery: 'maybe' } }, '/data/outsourced_delivery'],
    ['an unknown field', { data: { favourite_colour: 'blue' } }, '/data/favourite_colour'],
    ['no data', { edit_reason: 'why' }, '/data'],
    ['an empty data object', { data: {} }, '/data'],
  ])('answers 422 for %s', async (_label, body, pointer) => {
    const etag = (await api.request('GET', orgContext(), { token: op.org })).headers.get('etag');
    const res = await patch(orgContext(), body, etag);
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
  });

  it('answers 428 without If-Match and 412 with a stale one', async () => {
    expect((await patch(orgContext(), { data: { workforce_size: '1_19' } }, null)).status).toBe(428);
    const etag = (await api.request('GET', orgContext(), { token: op.org })).headers.get('etag');
    await patch(orgContext(), { data: { workforce_size: '20_199' } }, etag);
    expect((await patch(orgContext(), { data: { workforce_size: '1_19' } }, etag)).status).toBe(412);
  });

  it('does not accept the organisation identity ETag', async () => {
    const identity = await api.request('GET', `/api/v1/organisations/${op.organisationId}`, { token: op.org });
    expect((await patch(orgContext(), { data: { workforce_size: '1_19' } }, identity.headers.get('etag'))).status).toBe(412);
  });
});

describe('system context', () => {
  it('records a durable recalculation request when an applicability field changes', async () => {
    const etag = (await api.request('GET', sysContext(), { token: op.org })).headers.get('etag');
    const res = await patch(sysContext(), { data: { internet_facing_services: 'yes', hosting_model: 'no' }, edit_reason: 'Go-live' }, etag);
    expect(res.status).toBe(200);
    const marker = await getOne(keys.applicabilityRecalculation(systemId));
    expect(marker).toMatchObject({
      organisation_id: op.organisationId,
      subject: { system_id: systemId },
      requested_by: op.userId,
      generation: 1,
      GSI1PK: 'APPLICABILITY_PENDING',
    });
  });

  it('does not request recalculation for a descriptive change', async () => {
    const other = await api.request('POST', `/api/v1/organisations/${op.organisationId}/systems`, {
      token: op.org,
      body: { name: 'Other', short_code: `o${Date.now() % 100000}` },
      headers: { 'Idempotency-Key': newUlid() },
    });
    const path = `/api/v1/organisations/${op.organisationId}/systems/${other.body.data.id}/context`;
    const etag = (await api.request('GET', path, { token: op.org })).headers.get('etag');
    expect((await patch(path, { data: { system_description: 'Pays people' } }, etag)).status).toBe(200);
    expect(await getOne(keys.applicabilityRecalculation(other.body.data.id))).toBeUndefined();
  });

  it('answers 404 for a system of another organisation', async () => {
    const stranger = await fixtures.operator();
    const res = await api.request('GET', `/api/v1/organisations/${stranger.organisationId}/systems/${systemId}/context`, { token: stranger.org });
    expect(res.status).toBe(404);
  });
});
