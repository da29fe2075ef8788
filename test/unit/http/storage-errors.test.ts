import { describe, expect, it } from 'vitest';
import { isStorageUnavailable } from '../../../lib/http/storage-errors.js';

describe('isStorageUnavailable', () => {
  it('is true for throttling by name', () => {
    expect(isStorageUnavailable({ name: 'ProvisionedThroughputExceededException' })).toBe(true);
  });

  it('is true for a socket error by code and a hang-up by message', () => {
    expect([isStorageUnavailable({ code: 'ECONNREFUSED' }), isStorageUnavailable(new Error('socket hang up'))]).toEqual([true, true]);
  });

  it("is true for a service-side fault the SDK's retries did not get past", () => {
    expect(isStorageUnavailable({ name: 'InternalServerError', $fault: 'server' })).toBe(true);
  });

  it('looks into causes and the errors of an AggregateError', () => {
    expect(isStorageUnavailable(new AggregateError([new Error('x'), Object.assign(new Error('y'), { code: 'ETIMEDOUT' })]))).toBe(true);
    expect(isStorageUnavailable(new Error('wrapped', { cause: { name: 'TimeoutError' } }))).toBe(true);
  });

  it('is false for a client fault, a condition failure and what is not an error', () => {
    expect([
      isStorageUnavailable({ name: 'ConditionalCheckFailedException', $fault: 'client' }),
      isStorageUnavailable('ECONNRESET'),
      isStorageUnavailable(null),
    ]).toEqual([false, false, false]);
  });

  it('stops looking past a few levels of causes', () => {
    let error: unknown = { code: 'ECONNRESET' };
    for (let i = 0; i < 5; i++) error = { cause: error };
    expect(isStorageUnavailable(error)).toBe(false);
  });
});
