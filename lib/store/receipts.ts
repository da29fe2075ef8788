import { createHash } from 'node:crypto';
import * as z from 'zod';
import { absentOrExpired } from './conditions.js';
import { once } from '../domain/validation.js';
import { parseStored } from './entity.js';
import { keys } from './keys.js';
import type { Item } from './read.js';
import type { WriteItem } from './transact.js';

/** Seed, Limits: receipts are kept 24 hours. */
export const RECEIPT_SECONDS = 24 * 60 * 60;

export interface ReceiptScope {
  userId: string;
  tokenId: string;
  operationId: string;
  /** Operation id plus path identifiers: what the create acts on. */
  target: string;
  payloadHash: string;
}

const storedResponseSchema = once(() =>
  z.object({
    status: z.number().int(),
    data: z.unknown(),
    etag: z.string().optional(),
    location: z.string().optional(),
  }),
);
export type StoredResponse = z.output<ReturnType<typeof storedResponseSchema>>;

const receiptSchema = once(() =>
  z.looseObject({
    token_id: z.string(),
    operation_id: z.string(),
    target: z.string(),
    payload_hash: z.string(),
    response: storedResponseSchema(),
    expires_at: z.number(),
  }),
);

export const idempotencyDigest = (key: string) => createHash('sha256').update(key).digest('hex');

/** Canonical JSON (sorted keys) so that the same payload in another key order is the same payload. */
export function canonicalHash(value: unknown): string {
  return createHash('sha256').update(canonical(value)).digest('hex');
}

function canonical(value: unknown): string {
  // Uploaded bytes count by their digest: the same file is the same payload.
  if (Buffer.isBuffer(value)) return JSON.stringify(`sha256:${createHash('sha256').update(value).digest('hex')}`);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export type ReceiptMatch = { kind: 'none' } | { kind: 'replay'; response: StoredResponse } | { kind: 'conflict' };

/** Seed receipt rule: replay when credential, operation, target and canonical payload all match. */
export function matchReceipt(item: Item | undefined, scope: ReceiptScope, nowSeconds: number): ReceiptMatch {
  if (!item) return { kind: 'none' };
  const receipt = parseStored(receiptSchema(), item);
  if (receipt.expires_at < nowSeconds) return { kind: 'none' };
  const same =
    receipt.token_id === scope.tokenId &&
    receipt.operation_id === scope.operationId &&
    receipt.target === scope.target &&
    receipt.payload_hash === scope.payloadHash;
  return same ? { kind: 'replay', response: receipt.response } : { kind: 'conflict' };
}

export class ReceiptRaceError extends Error {
  override readonly name = 'ReceiptRaceError';
}

export function receiptWrite(scope: ReceiptScope, keyDigest: string, response: StoredResponse, nowSeconds: number): WriteItem {
  const expires = nowSeconds + RECEIPT_SECONDS;
  return {
    kind: 'put',
    item: {
      ...keys.receipt(scope.userId, keyDigest),
      entity: 'receipt',
      token_id: scope.tokenId,
      operation_id: scope.operationId,
      target: scope.target,
      payload_hash: scope.payloadHash,
      response,
      expires_at: expires,
      ttl: expires,
    },
    condition: absentOrExpired(nowSeconds),
    onConditionFailed: () => new ReceiptRaceError('a concurrent request holds this Idempotency-Key'),
  };
}
