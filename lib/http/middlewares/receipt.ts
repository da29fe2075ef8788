import { keys } from '../../store/keys.js';
import { keyString } from '../../store/read.js';
import { canonicalHash, idempotencyDigest, matchReceipt, type ReceiptScope } from '../../store/receipts.js';
import { receiptConflict } from '../../operations/kernel/unit-of-work.js';
import { header } from '../event.js';
import { established, type Middleware } from '../state.js';
import { validIdempotencyKey } from './load.js';

/**
 * Step 9: a receipt read in the authentication round trip either replays (same credential,
 * operation, target and canonical payload) or conflicts. Receipts are scoped to the actor, so a
 * key never collides with another user's.
 */
export function receipt(): Middleware {
  return {
    before: (request) => {
      const { operation: op, caller, input } = established(request);
      const idempotencyKey = header(request.event, 'idempotency-key');
      // The preconditions step refused an operation's request without a valid key.
      if (!op.idempotencyKey || !validIdempotencyKey(idempotencyKey)) return;
      const { state } = request;
      const keyDigest = idempotencyDigest(idempotencyKey);
      const params = (input.params ?? {}) as Record<string, string>;
      const scope: ReceiptScope = {
        userId: caller.userId,
        tokenId: caller.tokenId,
        operationId: op.id,
        target: [
          op.id,
          ...Object.keys(params)
            .sort()
            .map((k) => `${k}=${params[k]}`),
        ].join('|'),
        payloadHash: canonicalHash(input.body ?? null),
      };
      state.receipt = { scope, keyDigest };
      const match = matchReceipt(state.items?.get(keyString(keys.receipt(caller.userId, keyDigest))), scope, Math.floor(state.startedAt.getTime() / 1000));
      if (match.kind === 'conflict') throw receiptConflict();
      if (match.kind === 'replay') state.replay = match.response;
    },
  };
}
