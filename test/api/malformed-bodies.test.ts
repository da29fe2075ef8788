import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../lib/operations/registry.js';
import { startForEveryOperation } from '../support/every-operation.js';

let every: Awaited<ReturnType<typeof startForEveryOperation>>;

beforeAll(async () => {
  every = await startForEveryOperation();
});
afterAll(() => every.api.stop());

const jsonBodied = OPERATIONS.filter((op) => op.body && op.body.mediaType !== 'multipart/form-data');

describe('a request body that is not JSON', () => {
  it.each(jsonBodied.map((op) => [op.id, op] as const))('answers %s with its declared 400 malformed_json', async (_id, op) => {
    const res = await every.api.request(op.method, every.pathOf(op), {
      token: every.tokenOf(op),
      rawBody: '{',
      headers: { 'Content-Type': op.body!.mediaType },
    });
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'malformed_json' });
  });
});
