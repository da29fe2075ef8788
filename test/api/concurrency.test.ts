import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import { fixtures, startApi, type Api } from '../support/api.js';

let api: Api;

beforeAll(async () => {
  api = await startApi({ API_MUTATION_RATE_LIMIT_PER_MINUTE: '1000', API_ACTOR_MUTATION_RATE_LIMIT_PER_MINUTE: '1000' });
});
afterAll(() => api.stop());

describe('concurrent writes', () => {
  it('lets exactly one of 20 PATCHes with the same ETag win; the rest get 412', async () => {
    const op = await fixtures.operator();
    const path = `/api/v1/organisations/${op.organisationId}`;
    const etag = (await api.request('GET', path, { token: op.org })).headers.get('etag')!;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => api.request('PATCH', path, { token: op.org, body: { notes: `writer ${i}` }, headers: { 'If-Match': etag } })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 412)).toHaveLength(19);
    const winner = results.find((r) => r.status === 200)!;
    expect((await api.request('GET', path, { token: op.org })).body.data.notes).toBe(winner.body.data.notes);
  });

  it('creates one resource for 20 parallel creates with the same Idempotency-Key, with identical bodies', async () => {
    const op = await fixtures.operator();
    const key = newUlid();
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        api.request('POST', '/api/v1/organisations', {
          token: op.admin,
          body: { name: 'Parallel Create', timezone: 'UTC' },
          headers: { 'Idempotency-Key': key },
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(new Set(results.map((r) => JSON.stringify(r.body.data))).size).toBe(1);
    expect(results.filter((r) => r.headers.get('idempotency-replayed') === 'false')).toHaveLength(1);
    const list = await api.request('GET', '/api/v1/organisations', { token: op.admin });
    expect(list.body.data.filter((o: { name: string }) => o.name === 'Parallel Create')).toHaveLength(1);
  });
});

describe('concurrent creates of organisations with one name', () => {
  it('all succeed, each with its own slug', async () => {
    const op = await fixtures.operator();
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        api.request('POST', '/api/v1/organisations', {
          token: op.admin,
          body: { name: 'Same Name Race', timezone: 'UTC' },
          headers: { 'Idempotency-Key': newUlid() },
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(201));
    expect(new Set(results.map((r) => r.body.data.slug)).size).toBe(6);
  });
});
