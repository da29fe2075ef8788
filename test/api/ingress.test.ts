import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type Api } from '../support/api.js';

let api: Api;

beforeAll(async () => {
  api = await startApi({ API_INGRESS_RATE_LIMIT_PER_MINUTE: '4' });
});
afterAll(() => api.stop());

describe('ingress budget', () => {
  it('answers 429 per IP before looking at any credential', async () => {
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 55_000) await new Promise((r) => setTimeout(r, 60_500 - intoMinute));
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await api.request('GET', '/api/v1/organisations')).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
  });
});
