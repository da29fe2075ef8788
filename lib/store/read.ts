import { BatchGetCommand, GetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client.js';
import type { Key } from './keys.js';
import { type Backoff, retryUntil, UnprocessedItemsError } from './retry.js';

export type Item = Record<string, unknown> & Key;

export const keyString = (k: Key) => `${k.PK}|${k.SK}`;

/** Unprocessed keys are retried briefly: these reads sit on the authentication path of every request. */
const UNPROCESSED_KEYS: Backoff = { attempts: 8, baseMs: 20, capMs: 200 };

/**
 * Strongly consistent BatchGetItem of up to 100 distinct keys, retrying unprocessed keys.
 * Consistency matters here: a revoked token or access must stop the very next request.
 */
export async function getMany(wanted: Key[]): Promise<Map<string, Item>> {
  const unique = [...new Map(wanted.map((k) => [keyString(k), { PK: k.PK, SK: k.SK }])).values()];
  const found = new Map<string, Item>();
  for (let i = 0; i < unique.length; i += 100) {
    let pending: Key[] = unique.slice(i, i + 100);
    await retryUntil(
      UNPROCESSED_KEYS,
      async () => {
        const out = await ddb().send(new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: pending, ConsistentRead: true } } }));
        for (const item of (out.Responses?.[tableName()] ?? []) as Item[]) found.set(keyString(item), item);
        pending = (out.UnprocessedKeys?.[tableName()]?.Keys ?? []) as Key[];
        return pending.length === 0;
      },
      () => new UnprocessedItemsError(`${pending.length} keys stayed unprocessed`),
    );
  }
  return found;
}

export async function getOne(key: Key): Promise<Item | undefined> {
  const out = await ddb().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  return out.Item as Item | undefined;
}

/** The items of one partition whose sort keys begin with a prefix: a small collection read whole. */
export interface Collection {
  PK: string;
  prefix: string;
}

export const collectionString = (c: Collection) => `${c.PK}|${c.prefix}*`;

/** A collection, strongly consistent like the authentication reads it runs beside. */
export const queryCollection = (c: Collection): Promise<Item[]> =>
  queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': c.PK, ':prefix': c.prefix },
    ConsistentRead: true,
  });

/**
 * The pages of a query in index order, following LastEvaluatedKey: the one pagination loop. A
 * caller that stops iterating stops reading; `maxPages` bounds a sweep that must not run long.
 */
export async function* queryPages(
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>,
  maxPages = Number.POSITIVE_INFINITY,
): AsyncGenerator<Item[]> {
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  let pages = 0;
  do {
    const out = await ddb().send(new QueryCommand({ ...input, TableName: tableName(), ExclusiveStartKey }));
    yield (out.Items ?? []) as Item[];
    ExclusiveStartKey = out.LastEvaluatedKey;
    pages++;
  } while (ExclusiveStartKey && pages < maxPages);
}

/** Every item of a query, following LastEvaluatedKey (for small, bounded collections). */
export async function queryAll(input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>, cap = 10_000): Promise<Item[]> {
  const items: Item[] = [];
  for await (const page of queryPages(input)) {
    items.push(...page);
    if (items.length >= cap) break;
  }
  return items;
}

/**
 * Page `number` of size `size` of a query in its index order. DynamoDB has no offset, so this
 * reads keys through the end of the page; list operations keep their index projections small
 * so that pages deep into a collection stay cheap.
 */
export async function queryPage(input: Omit<QueryCommandInput, 'TableName' | 'Limit'>, page: { number: number; size: number }): Promise<Item[]> {
  const skip = (page.number - 1) * page.size;
  const items: Item[] = [];
  let seen = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    // Bounded per request: a far page number must not become a Limit DynamoDB refuses.
    const remaining = Math.min(skip + page.size - seen, 1000);
    const out = await ddb().send(new QueryCommand({ ...input, TableName: tableName(), ExclusiveStartKey, Limit: remaining }));
    for (const item of (out.Items ?? []) as Item[]) {
      if (seen >= skip && items.length < page.size) items.push(item);
      seen++;
    }
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey && items.length < page.size);
  return items;
}
