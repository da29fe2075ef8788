import { describe, expect, it } from 'vitest';
import { canonicalHash, matchReceipt, type ReceiptScope } from '../../../lib/store/receipts.js';

const scope: ReceiptScope = {
  userId: 'U',
  tokenId: 'T',
  operationId: 'createOrganisation',
  target: 'createOrganisation',
  payloadHash: canonicalHash({ a: 1 }),
};
const stored = {
  PK: 'RECEIPT#U#d',
  SK: 'RECEIPT',
  token_id: 'T',
  operation_id: 'createOrganisation',
  target: 'createOrganisation',
  payload_hash: scope.payloadHash,
  expires_at: 2000,
  response: { status: 201, data: { id: 'X' } },
};

describe('receipts', () => {
  it('hashes payloads canonically, whatever the member order', () => {
    expect(canonicalHash({ b: [1, { d: 1, c: 2 }], a: 'x' })).toBe(canonicalHash({ a: 'x', b: [1, { c: 2, d: 1 }] }));
  });

  it('distinguishes payloads that differ', () => {
    expect(canonicalHash({ a: 1 })).not.toBe(canonicalHash({ a: '1' }));
  });

  it('refuses a receipt whose stored response is broken, naming its key', () => {
    expect(() => matchReceipt({ ...stored, response: { data: { id: 'X' } } }, scope, 1000)).toThrow(stored.PK);
  });

  it('replays when credential, operation, target and payload all match', () => {
    expect(matchReceipt(stored, scope, 1000)).toEqual({ kind: 'replay', response: stored.response });
  });

  it.each([
    ['another credential', { tokenId: 'T2' }],
    ['another operation', { operationId: 'createSystem' }],
    ['another target', { target: 'createOrganisation|x=1' }],
    ['another payload', { payloadHash: canonicalHash({ a: 2 }) }],
  ])('conflicts for %s', (_label, change) => {
    expect(matchReceipt(stored, { ...scope, ...change }, 1000).kind).toBe('conflict');
  });

  it('is gone after 24 hours even before TTL deletes it', () => {
    expect(matchReceipt(stored, scope, 2001).kind).toBe('none');
  });
});
