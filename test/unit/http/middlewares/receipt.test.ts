import { newUlid } from '../../../../lib/domain/ids.js';
import { describe, expect, it } from 'vitest';
import { receipt } from '../../../../lib/http/middlewares/receipt.js';
import type { AnyOperation, Caller } from '../../../../lib/operations/kernel/operation.js';
import { createOrganisation, getOrganisation } from '../../../../lib/operations/organisations/organisations.js';
import { createTaskComment } from '../../../../lib/operations/tasks/comments.js';
import { keys } from '../../../../lib/store/keys.js';
import { keyString } from '../../../../lib/store/read.js';
import { canonicalHash, idempotencyDigest } from '../../../../lib/store/receipts.js';
import { pipelineRequest, thrownBy } from '../../../support/pipeline.js';

/** The receipt step on what the load step read: a receipt of this caller under the request's Idempotency-Key, or none. */
const userId = newUlid();
const caller: Caller = { tokenId: 'T1', userId, type: 'administration', readOnly: false, permissions: new Set(), superUser: false };
const body = { name: 'A', timezone: 'UTC' };

const stored = (over: Record<string, unknown> = {}) => ({
  ...keys.receipt(userId, idempotencyDigest('k-2')),
  token_id: 'T1',
  operation_id: 'createOrganisation',
  target: 'createOrganisation',
  payload_hash: canonicalHash(body),
  expires_at: Math.floor(Date.parse('2026-11-23T00:00:00Z') / 1000),
  response: { status: 201, data: { id: 'X' } },
  ...over,
});

function request(options: { item?: Record<string, unknown>; operation?: unknown; key?: string | null; params?: Record<string, string>; body?: unknown } = {}) {
  const key = options.key === undefined ? 'k-2' : options.key;
  const items = new Map(options.item ? [[keyString(keys.receipt(userId, idempotencyDigest('k-2'))), options.item as never]] : []);
  return pipelineRequest({
    operation: (options.operation ?? createOrganisation) as AnyOperation,
    headers: key === null ? {} : { 'Idempotency-Key': key },
    state: { caller, items, input: { params: options.params ?? {}, query: {}, body: 'body' in options ? options.body : { timezone: 'UTC', name: 'A' } } },
  });
}
const run = async (r: ReturnType<typeof request>) => ({ request: r, outcome: await thrownBy(() => receipt().before!(r)) });

describe('receipt step', () => {
  it('marks a matching receipt for replay, whatever the member order of the payload', async () => {
    const { request: r, outcome } = await run(request({ item: stored() }));
    expect({ outcome, replay: r.state.replay }).toEqual({ outcome: undefined, replay: { status: 201, data: { id: 'X' } } });
  });

  it('throws 409 for the same key with another payload', async () => {
    expect((await run(request({ item: stored({ payload_hash: canonicalHash({ name: 'B' }) }) }))).outcome).toMatchObject({
      status: 409,
      code: 'idempotency_key_reused',
    });
  });

  it('ignores an expired receipt', async () => {
    const { request: r, outcome } = await run(request({ item: stored({ expires_at: 1 }) }));
    expect({ outcome, replay: r.state.replay }).toEqual({ outcome: undefined, replay: undefined });
  });

  it('scopes the receipt the operation will write to the caller, the operation, its target and its canonical payload', async () => {
    const { request: r } = await run(request());
    expect(r.state.receipt).toEqual({
      scope: { userId, tokenId: 'T1', operationId: 'createOrganisation', target: 'createOrganisation', payloadHash: canonicalHash(body) },
      keyDigest: idempotencyDigest('k-2'),
    });
  });

  it('names the target by the path parameters in name order', async () => {
    const { request: r } = await run(request({ operation: createTaskComment, params: { task: 'T9', project: 'P9' } }));
    expect(r.state.receipt!.scope.target).toBe('createTaskComment|project=P9|task=T9');
  });

  it('hashes an absent body as null', async () => {
    const { request: r } = await run(request({ body: undefined }));
    expect(r.state.receipt!.scope.payloadHash).toBe(canonicalHash(null));
  });

  it.each([
    ['an operation that takes no Idempotency-Key', { operation: getOrganisation }],
    ['a request without the header', { key: null }],
    ['a key longer than 255 characters, which the preconditions step refused', { key: 'k'.repeat(256) }],
  ])('does nothing for %s', async (_label, options) => {
    const { request: r } = await run(request({ ...options, item: stored() }));
    expect([r.state.receipt, r.state.replay]).toEqual([undefined, undefined]);
  });
});
