import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client.js';
import type { Key } from './keys.js';
import { type Backoff, retryUntil, UnprocessedItemsError } from './retry.js';

const BATCH = 25;
/** Bulk writes run in jobs, which may wait longer than a request for capacity to come back. */
const UNPROCESSED_ITEMS: Backoff = { attempts: 10, baseMs: 25, capMs: 1000 };

type WriteRequest = { PutRequest: { Item: Key & Record<string, unknown> } } | { DeleteRequest: { Key: Key } };

/**
 * Unconditional puts in BatchWriteItem requests of 25, `concurrency` requests at a time, retrying
 * unprocessed items with backoff. For bulk writes whose keys are deterministic (a redelivered job
 * writes the same items again), never for writes that need a condition.
 */
export const putAll = (items: (Key & Record<string, unknown>)[], concurrency = 4): Promise<void> =>
  writeAll(
    items.map((Item) => ({ PutRequest: { Item } })),
    concurrency,
  );

/** Unconditional deletes, batched like putAll: deleting what is already gone is no error, so a redelivered job may delete again. */
export const deleteAll = (keys: Key[], concurrency = 4): Promise<void> =>
  writeAll(
    keys.map((k) => ({ DeleteRequest: { Key: { PK: k.PK, SK: k.SK } } })),
    concurrency,
  );

async function writeAll(requests: WriteRequest[], concurrency: number): Promise<void> {
  const batches: WriteRequest[][] = [];
  for (let i = 0; i < requests.length; i += BATCH) batches.push(requests.slice(i, i + BATCH));
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      let pending = batches[next++]!;
      await retryUntil(
        UNPROCESSED_ITEMS,
        async () => {
          const out = await ddb().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
          pending = (out.UnprocessedItems?.[tableName()] ?? []) as WriteRequest[];
          return pending.length === 0;
        },
        () => new UnprocessedItemsError(`${pending.length} writes stayed unprocessed`),
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, batches.length) }, worker));
}
