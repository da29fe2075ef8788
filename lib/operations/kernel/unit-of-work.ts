import { auditWrite } from '../../store/audit.js';
import { keys, type Key } from '../../store/keys.js';
import { collectionString, getOne, keyString, type Collection, type Item } from '../../store/read.js';
import { matchReceipt, receiptWrite, ReceiptRaceError, type ReceiptScope, type StoredResponse } from '../../store/receipts.js';
import { commit } from '../../store/transact.js';
import { conflict, RetryableConflict } from '../../errors.js';
import type { AnyOperation, Caller, FileAnswer, HandlerInput, OperationContext, OperationResult, Page } from './operation.js';
import { routeOf } from './router.js';

export const receiptConflict = () => conflict('idempotency_key_reused', 'This Idempotency-Key was used with another credential, operation, target or payload.');

/** An Idempotency-Key's receipt: what it is bound to, and its digest, which names the stored item. */
export interface ReceiptClaim {
  scope: ReceiptScope;
  keyDigest: string;
}

/** What a request established before its operation runs: who calls, with what input, and what was read for it. */
export interface Work {
  operation: AnyOperation;
  requestId: string;
  startedAt: Date;
  /** What the audit record keeps of the request beyond the caller. */
  method: string;
  ip: string;
  caller: Caller;
  input: HandlerInput<unknown, unknown, unknown>;
  page: Page;
  ifMatch?: string;
  /** The items of the authentication round trip, the keys the operation declared among them, and its collections. */
  items: ReadonlyMap<string, Item>;
  prefetchable: ReadonlySet<string>;
  collections: ReadonlyMap<string, Item[]>;
  receipt?: ReceiptClaim;
  /** The stored answer of an earlier request with the same Idempotency-Key. */
  replay?: StoredResponse;
}

/** What the operation answers: a file as it is, or data for the JSON envelope. */
export type Outcome =
  | { kind: 'file'; file: FileAnswer }
  | { kind: 'data'; status: number; data: unknown; etag?: string; location?: string; total?: number; replayed: boolean };

/**
 * Steps 9 and 10 below HTTP: replay, or run the handler and commit its writes in one transaction
 * with the audit record and the receipt; a lost race for the receipt answers as the winner's replay
 * or as a conflict, and a handler's RetryableConflict runs it once more.
 */
export async function perform(work: Work): Promise<Outcome> {
  if (work.replay) return replay(work, work.replay);
  try {
    return await runOnce(work);
  } catch (error) {
    if (!(error instanceof RetryableConflict)) throw error;
  }
  try {
    return await runOnce(work);
  } catch (error) {
    throw error instanceof RetryableConflict ? error.final : error;
  }
}

function contextOf(work: Work): OperationContext {
  const op = work.operation;
  return {
    requestId: work.requestId,
    now: work.startedAt,
    caller: work.caller,
    prefetched: (k: Key) => {
      const wanted = keyString(k);
      // An undeclared key would read as a missing item, a silent 404: it is a programming error.
      if (!work.prefetchable.has(wanted)) throw new Error(`${op.id} reads ${wanted} without declaring it in prefetch`);
      return work.items.get(wanted);
    },
    prefetchedCollection: (c: Collection) => {
      const items = work.collections.get(collectionString(c));
      if (!items) throw new Error(`${op.id} reads ${collectionString(c)} without declaring it in prefetchCollections`);
      return items;
    },
    ifMatch: work.ifMatch,
    page: work.page,
  };
}

async function runOnce(work: Work): Promise<Outcome> {
  const { operation: op, caller, input } = work;
  const result: OperationResult<unknown> = await op.handle(contextOf(work), input as never);
  const status = result.status ?? op.success;
  if (result.file) return { kind: 'file', file: result.file };
  // The declared schema is the contract: it fixes the member order and drops anything internal.
  result.data = op.response.parse(result.data);

  if (op.mode === 'mutation') {
    const nowSeconds = Math.floor(work.startedAt.getTime() / 1000);
    const stored: StoredResponse = { status, data: result.data, etag: result.etag, location: result.location };
    const writes = [
      ...(result.writes ?? []),
      auditWrite(
        {
          kind: op.auditKind ?? auditKindOf(op.id),
          request_id: work.requestId,
          operation_id: op.id,
          method: work.method,
          route: routeOf(op),
          status,
          actor_id: caller.userId,
          token_id: caller.tokenId,
          credential_type: caller.type,
          ...(caller.organisationId ? { organisation_id: caller.organisationId } : {}),
          target: result.auditTarget ?? (input.params as Record<string, string>),
          ...(result.auditDetails ? { details: result.auditDetails } : {}),
          source_ip: work.ip,
        },
        work.startedAt,
      ),
    ];
    // First, so that losing a race for the key is reported before any other condition it also fails.
    if (work.receipt) writes.unshift(receiptWrite(work.receipt.scope, work.receipt.keyDigest, stored, nowSeconds));
    try {
      await commit(writes);
    } catch (error) {
      if (!(error instanceof ReceiptRaceError) || !work.receipt) throw error;
      // Another request with the same key won the race: answer as its replay, or as a conflict.
      const winner = await getOne(keys.receipt(caller.userId, work.receipt.keyDigest));
      const match = matchReceipt(winner, work.receipt.scope, nowSeconds);
      if (match.kind !== 'replay') throw receiptConflict();
      return replay(work, match.response);
    }
  }
  await result.afterCommit?.();
  return { kind: 'data', status, data: result.data, etag: result.etag, location: result.location, total: result.total, replayed: false };
}

/** A stored answer, after the operation's recheck of what the original write needed, in the caller's current view. */
function replay(work: Work, stored: StoredResponse): Outcome {
  const op = work.operation;
  op.recheck?.(contextOf(work), work.input as never);
  const view = op.redact ? op.redact({ data: stored.data as never, etag: stored.etag }, work.caller) : stored;
  // Stored maps come back from DynamoDB in no particular member order; the schema restores it.
  const data = op.response.parse(view.data);
  return { kind: 'data', status: stored.status, data, etag: view.etag, location: stored.location, replayed: true };
}

/** createOrganisation -> CREATE_ORGANISATION */
export const auditKindOf = (operationId: string) => operationId.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
