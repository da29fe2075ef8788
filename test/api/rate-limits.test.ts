import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import { mintToken } from '../../lib/auth/tokens.js';
import { fixtures, startApi, type Api } from '../support/api.js';
import { auditRecords } from '../support/audit.js';

let api: Api;

beforeAll(async () => {
  api = await startApi({
    API_READ_RATE_LIMIT_PER_MINUTE: '3',
    API_ACTOR_READ_RATE_LIMIT_PER_MINUTE: '5',
    API_MUTATION_RATE_LIMIT_PER_MINUTE: '2',
  });
});
afterAll(() => api.stop());

const read = (token: string, organisationId: string) => api.request('GET', `/api/v1/organisations/${organisationId}`, { token });

// Fixed one-minute windows: a test that straddles a boundary would see fresh budgets.
async function atStartOfWindow(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 50_000) await new Promise((r) => setTimeout(r, 60_500 - intoMinute));
}

describe('rate limits', () => {
  it('answers 429 with Retry-After once the credential read budget is spent', async () => {
    await atStartOfWindow();
    const op = await fixtures.operator();
    for (let i = 0; i < 3; i++) expect((await read(op.org, op.organisationId)).status).toBe(200);
    const res = await read(op.org, op.organisationId);
    expect(res.status).toBe(429);
    expect(res.body.code).toBe('rate_limited');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(60);
  });

  it('advertises the budgets in RateLimit-Policy and the remaining one in RateLimit', async () => {
    await atStartOfWindow();
    const op = await fixtures.operator();
    const res = await read(op.org, op.organisationId);
    expect(res.headers.get('ratelimit-policy')).toContain('"read-credential";q=3;w=60');
    expect(res.headers.get('ratelimit-policy')).toContain('"read-organisation";q=1200;w=60');
    expect(res.headers.get('ratelimit')).toMatch(/^"read-credential";r=2;t=\d+$/);
  });

  it('counts every credential of one actor against the actor budget', async () => {
    await atStartOfWindow();
    const op = await fixtures.operator();
    const second = await fixtures.token(op.userId, 'organisation', { organisationId: op.organisationId });
    for (let i = 0; i < 3; i++) expect((await read(op.org, op.organisationId)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await read(second, op.organisationId)).status).toBe(200);
    const res = await read(second, op.organisationId);
    expect(res.status).toBe(429);
    expect(res.body.detail).toContain('actor');
  });

  it('keeps the mutation class separate from the read class', async () => {
    await atStartOfWindow();
    const op = await fixtures.operator();
    let etag = '';
    for (let i = 0; i < 3; i++) etag = (await read(op.org, op.organisationId)).headers.get('etag')!;
    expect((await read(op.org, op.organisationId)).status).toBe(429);
    const res = await api.request('PATCH', `/api/v1/organisations/${op.organisationId}`, {
      token: op.org,
      body: { notes: 'still allowed' },
      headers: { 'If-Match': etag },
    });
    expect(res.status).toBe(200);
  });

  it('counts Administration credentials on the actor budget, with no organisation budget', async () => {
    await atStartOfWindow();
    const op = await fixtures.operator();
    const res = await api.request('POST', '/api/v1/organisations', {
      token: op.admin,
      body: { name: 'Budget', timezone: 'UTC' },
      headers: { 'Idempotency-Key': newUlid() },
    });
    expect(res.headers.get('ratelimit-policy')).toContain('"mutation-actor";q=60;w=60');
    expect(res.headers.get('ratelimit-policy')).not.toContain('organisation');
  });

  it('charges no caller budget for a token the server did not mint, whoever it names', async () => {
    await atStartOfWindow();
    const victim = await fixtures.operator();
    const forged = mintToken({ tokenId: newUlid(), userId: victim.userId, organisationId: victim.organisationId }, 'not-the-server-key-'.repeat(3));
    for (let i = 0; i < 6; i++) expect((await read(forged, victim.organisationId)).status).toBe(401);
    const res = await read(victim.org, victim.organisationId);
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit')).toMatch(/^"read-credential";r=2;/);
  });

  it('samples repeated 429 audit events to one per IP per minute', async () => {
    await atStartOfWindow();
    const op = await fixtures.operator();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await read(op.org, op.organisationId)).status);
    expect(statuses.filter((s) => s === 429).length).toBe(3);
    const minute = Math.floor(Date.now() / 60_000);
    const sampled = (await auditRecords(op.organisationId)).filter((r) => r.kind === 'RATE_LIMITED' && r.SK === `RATE_LIMITED#127.0.0.1#${minute}`);
    expect(sampled).toHaveLength(1);
  });
});
