import { ScanCommand, type ScanCommandInput } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client.js';
import type { Item } from './read.js';

// The table's only Scan, kept apart from the access patterns of lib/store/read.ts so that only the
// data migrations (operator tooling) reach it: the architecture test holds it there.
/** Every item a strongly consistent Scan keeps, a page at a time: for data migrations, never a request path. */
export async function scanEach(input: Omit<ScanCommandInput, 'TableName' | 'ExclusiveStartKey'>, each: (item: Item) => Promise<void> | void): Promise<void> {
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const out = await ddb().send(new ScanCommand({ ...input, TableName: tableName(), ExclusiveStartKey, ConsistentRead: true }));
    for (const item of (out.Items ?? []) as Item[]) await each(item);
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey);
}
