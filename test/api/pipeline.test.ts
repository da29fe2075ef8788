import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import { permissionsOf } from '../../lib/domain/permissions.js';
import { deleteToken, setUserStatus } from '../../lib/store/identity.js';
import { parseToken } from '../../lib/auth/tokens.js';
import { fixtures, startApi, type Api } from '../support/api.js';
import { auditRecords } from '../support/audit.js';

let api: Api;
let op: Awaited<ReturnType<typeof fixtures.operator>>;

beforeAll(async () => {
  api = await startApi();
  op = await fixtures.operator();
});
afterAll(() => api.stop());

const orgPath = () => `/api/v1/organisations/${op.organisationId}`;

describe('request id', () => {
  it('is on a success, in the header and in meta', async () => {
    const res = await api.request('GET', orgPath(), { token: op.org });
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9A-Z]{26}$/);
    expect(res.body.meta.request_id).toBe(res.headers.get('x-request-id'));
  });

  it('is on a 401, in the header and in the problem', async () => {
    const res = await api.request('GET', orgPath());
    expect(res.status).toBe(401);
    expect(res.headers.get('x-request-id')).toBe(res.body.request_id);
  });

  it('is on a 404 for an unknown route', async () => {
    const res = await api.request('GET', '/api/v1/no/such/route');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.headers.get('x-request-id')).toBe(res.body.request_id);
  });
});

describe('routing', () => {
  it('answers 405 with Allow for a known path and another method', async () => {
    const res = await api.request('DELETE', orgPath(), { token: op.org });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, PATCH');
  });

  it('answers 404 outside /api/v1', async () => {
    expect((await api.request('GET', '/organisations')).status).toBe(404);
  });
});

describe('authentication', () => {
  const get = (token?: string, headers: Record<string, string> = {}) => api.request('GET', orgPath(), { token, headers });

  it.each([
    ['no Authorization header', undefined],
    ['a malformed token', 'aop_not-a-token'],
    ['an unknown token id', `aop_${newUlid()}${newUlid()}${newUlid()}${'0'.repeat(26)}${'a'.repeat(40)}`],
  ])('answers 401 for %s', async (_label, token) => {
    const res = await get(token);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthenticated');
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('answers 401 for a token whose secret was altered', async () => {
    const last = op.org.at(-1) === 'a' ? 'b' : 'a';
    expect((await get(op.org.slice(0, -1) + last)).status).toBe(401);
  });

  it('answers 401 for a token whose embedded identifiers were altered', async () => {
    const other = await fixtures.organisation(op.userId);
    expect((await get(op.org.replace(op.organisationId, other))).status).toBe(401);
  });

  it('answers 401 for a non-Bearer scheme', async () => {
    expect((await get(undefined, { Authorization: `Basic ${op.org}` })).status).toBe(401);
  });

  it('answers 401 once the token has expired', async () => {
    const token = await fixtures.token(op.userId, 'organisation', { organisationId: op.organisationId, expiresAt: new Date(Date.now() + 1200).toISOString() });
    expect((await get(token)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1300));
    expect((await get(token)).status).toBe(401);
  });

  it('answers 401 on the next request after the token is revoked', async () => {
    const token = await fixtures.token(op.userId, 'organisation', { organisationId: op.organisationId });
    expect((await get(token)).status).toBe(200);
    await deleteToken(parseToken(token)!.tokenId);
    expect((await get(token)).status).toBe(401);
  });

  it.each(['disabled', 'deleted'] as const)('answers 401 when the actor is %s', async (status) => {
    const actor = await fixtures.operator();
    expect((await api.request('GET', `/api/v1/organisations/${actor.organisationId}`, { token: actor.org })).status).toBe(200);
    await setUserStatus(actor.userId, status);
    expect((await api.request('GET', `/api/v1/organisations/${actor.organisationId}`, { token: actor.org })).status).toBe(401);
  });
});

describe('live authority', () => {
  it('answers 404 on the next request once organisation access is revoked', async () => {
    const actor = await fixtures.operator();
    const path = `/api/v1/organisations/${actor.organisationId}`;
    expect((await api.request('GET', path, { token: actor.org })).status).toBe(200);
    const { revokeAccess } = await import('../../lib/store/identity.js');
    await revokeAccess(actor.userId, { kind: 'organisation', id: actor.organisationId });
    expect((await api.request('GET', path, { token: actor.org })).status).toBe(404);
  });

  it('answers 403 once the live permission is removed, though the token still selects it', async () => {
    const actor = await fixtures.operator();
    const path = `/api/v1/organisations/${actor.organisationId}`;
    const etag = (await api.request('GET', path, { token: actor.org })).headers.get('etag')!;
    const without = permissionsOf('organisation').filter((p) => p !== 'manage-org-hierarchy');
    await fixtures.grant(actor.userId, { kind: 'organisation', id: actor.organisationId }, without);
    const res = await api.request('PATCH', path, { token: actor.org, body: { notes: 'x' }, headers: { 'If-Match': etag } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('permission_denied');
  });

  it('answers 403 to a read-only credential on a mutation, and changes nothing', async () => {
    const token = await fixtures.token(op.userId, 'organisation', { organisationId: op.organisationId, readOnly: true });
    const before = await api.request('GET', orgPath(), { token });
    const res = await api.request('PATCH', orgPath(), { token, body: { notes: 'read-only' }, headers: { 'If-Match': before.headers.get('etag')! } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('read_only_credential');
    expect((await api.request('GET', orgPath(), { token })).headers.get('etag')).toBe(before.headers.get('etag'));
  });
});

describe('audit', () => {
  it('records a mutation with its actor, token and target in the organisation trail', async () => {
    const before = await api.request('GET', orgPath(), { token: op.org });
    const res = await api.request('PATCH', orgPath(), {
      token: op.org,
      body: { notes: 'audited value' },
      headers: { 'If-Match': before.headers.get('etag')! },
    });
    const record = (await auditRecords(op.organisationId)).find((r) => r.request_id === res.headers.get('x-request-id'));
    expect(record).toMatchObject({ kind: 'UPDATE_ORGANISATION', status: 200, actor_id: op.userId, target: { organisation: op.organisationId } });
    expect(JSON.stringify(record)).not.toContain('audited value');
  });

  it('records an authentication failure without the bearer secret', async () => {
    const res = await api.request('GET', orgPath(), { token: op.org.slice(0, -1) + (op.org.at(-1) === 'x' ? 'y' : 'x') });
    const record = (await auditRecords('installation')).find((r) => r.request_id === res.headers.get('x-request-id'));
    expect(record).toMatchObject({ kind: 'AUTHENTICATION_FAILED', status: 401, route: '/api/v1/organisations/{organisation}' });
    expect(JSON.stringify(record)).not.toContain(op.org.slice(-40, -1));
  });

  it('records a failed read without its query values', async () => {
    const res = await api.request('GET', '/api/v1/organisations?page[size]=secretvalue', { token: op.admin });
    expect(res.status).toBe(422);
    const record = (await auditRecords('installation')).find((r) => r.request_id === res.headers.get('x-request-id'));
    expect(record).toMatchObject({ kind: 'REQUEST_FAILED', status: 422, code: 'validation_failed', actor_id: op.userId });
    expect(JSON.stringify(record)).not.toContain('secretvalue');
  });
});
