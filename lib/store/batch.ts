import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client.js';
import type { Key } from './keys.js';

const BATCH = 25;

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
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 20 * 2 ** attempt)));
        const out = await ddb().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
        pending = (out.UnprocessedItems?.[tableName()] ?? []) as WriteRequest[];
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, batches.length) }, worker));
}
