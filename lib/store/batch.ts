import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client.js';
import type { Key } from './keys.js';

const BATCH = 25;

/**
 * Unconditional puts in BatchWriteItem requests of 25, `concurrency` requests at a time, retrying
 * unprocessed items with backoff. For bulk writes whose keys are deterministic (a redelivered job
 * writes the same items again), never for writes that need a condition.
 */
export async function putAll(items: (Key & Record<string, unknown>)[], concurrency = 4): Promise<void> {
  const batches: (Key & Record<string, unknown>)[][] = [];
  for (let i = 0; i < items.length; i += BATCH) batches.push(items.slice(i, i + BATCH));
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      const batch = batches[next++]!;
      let pending = batch.map((Item) => ({ PutRequest: { Item } }));
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 20 * 2 ** attempt)));
        const out = await ddb().send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
        pending = (out.UnprocessedItems?.[tableName()] ?? []) as typeof pending;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, batches.length) }, worker));
}
