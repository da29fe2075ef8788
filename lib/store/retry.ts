/**
 * The one retry loop of the store. The SDK already retries a request that failed (throttling,
 * 5xx, a dropped connection: `maxAttempts` in client.ts); what it cannot retry is a request that
 * succeeded with less than everything done, or a race lost to another writer: a BatchGetItem or
 * BatchWriteItem answered with unprocessed items, a transaction cancelled for a conflict with
 * another transaction, a recount whose condition a concurrent write broke. Those are ours.
 */
export interface Backoff {
  /** Calls in all, the first included. */
  attempts: number;
  /** The bound of the first pause, which doubles with each retry. */
  baseMs: number;
  /** The bound no pause exceeds. */
  capMs: number;
}

/**
 * The pause before retry `retry` (1 for the first): full jitter, uniform below an exponential bound
 * with a cap, so that writers that collided spread out instead of colliding again in step.
 */
export const backoffDelay = (backoff: Backoff, retry: number, random: () => number = Math.random): number =>
  random() * Math.min(backoff.capMs, backoff.baseMs * 2 ** (retry - 1));

/**
 * Calls `attempt` (with its number, from 1) until it answers true, pausing before each call after
 * the first. After `attempts` calls that all answered false, throws `exhausted()`; an error that
 * `attempt` throws ends the loop at once.
 */
export async function retryUntil(backoff: Backoff, attempt: (n: number) => Promise<boolean>, exhausted: () => Error): Promise<void> {
  for (let n = 1; n <= backoff.attempts; n++) {
    if (n > 1) await new Promise((resolve) => setTimeout(resolve, backoffDelay(backoff, n - 1)));
    if (await attempt(n)) return;
  }
  throw exhausted();
}

/** DynamoDB kept answering part of a batch as unprocessed (its capacity was exceeded throughout): the contract's 503. */
export class UnprocessedItemsError extends Error {
  override readonly name = 'UnprocessedItemsError';
}
