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

type QueryInput = Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>;

/** How far a paginated query reads. */
export interface PageBounds {
  /** Start after this key (a position reached by an earlier read). */
  after?: Key;
  /**
   * Return at most this many items in all: each request asks for what remains (at most 1,000, a
   * Limit DynamoDB accepts), so that a query reads no further than its caller needs.
   */
  limit?: number;
  /** Stop after this many requests: a sweep that must not run long. */
  maxPages?: number;
}

/** The most items one request of a bounded query asks for: a far page must not become a Limit DynamoDB refuses. */
const MAX_LIMIT = 1000;

/**
 * The pages of a query in index order, following LastEvaluatedKey: the one pagination loop. A
 * caller that stops iterating stops reading. A page may be empty when a filter matched nothing in it.
 */
export async function* queryPages(input: QueryInput, bounds: PageBounds = {}): AsyncGenerator<Item[]> {
  const { limit, maxPages = Number.POSITIVE_INFINITY } = bounds;
  let ExclusiveStartKey: Record<string, unknown> | undefined = bounds.after && { ...bounds.after };
  let pages = 0;
  let read = 0;
  do {
    const Limit = limit === undefined ? {} : { Limit: Math.min(limit - read, MAX_LIMIT) };
    const out = await ddb().send(new QueryCommand({ ...input, ...Limit, TableName: tableName(), ExclusiveStartKey }));
    const items = (out.Items ?? []) as Item[];
    yield items;
    ExclusiveStartKey = out.LastEvaluatedKey;
    pages++;
    read += items.length;
  } while (ExclusiveStartKey && pages < maxPages && (limit === undefined || read < limit));
}

/** Every item of a query, following LastEvaluatedKey (for small, bounded collections). */
export async function queryAll(input: QueryInput, cap = 10_000): Promise<Item[]> {
  const items: Item[] = [];
  for await (const page of queryPages(input)) {
    items.push(...page);
    if (items.length >= cap) break;
  }
  return items;
}

/** The first `limit` items of a query (after `after`, when given), in as few requests as that takes. */
export async function queryUpTo(input: QueryInput, limit: number, after?: Key): Promise<Item[]> {
  const items: Item[] = [];
  for await (const page of queryPages(input, { limit, ...(after ? { after } : {}) })) items.push(...page);
  return items;
}

/**
 * Page `number` of size `size` of a query in its index order. DynamoDB has no offset, so this
 * reads keys through the end of the page; list operations keep their index projections small
 * so that pages deep into a collection stay cheap.
 */
export async function queryPage(input: Omit<QueryInput, 'Limit'>, page: { number: number; size: number }): Promise<Item[]> {
  const skip = (page.number - 1) * page.size;
  return (await queryUpTo(input, skip + page.size)).slice(skip);
}
