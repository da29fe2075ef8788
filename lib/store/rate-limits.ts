import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { once } from '../domain/validation.js';
import { ddb, tableName } from './client.js';
import { counterSchema, countOf, readCounts } from './counters.js';
import { keys, type Key } from './keys.js';

export const WINDOW_SECONDS = 60;

/** One counter item and the counts it keeps: `count` for the item's own scope, plus named sub-counts. */
export interface CounterHit {
  budget: string;
  subject: string;
  /** Counters of narrower scopes kept in the same item (a credential inside its actor's item). */
  nested?: { budget: string; subject: string }[];
}

export interface Count {
  budget: string;
  count: number;
  resetSeconds: number;
}

function windowOf(now: Date): { epoch: number; window: number } {
  const epoch = Math.floor(now.getTime() / 1000);
  return { epoch, window: Math.floor(epoch / WINDOW_SECONDS) };
}

const NESTED = 'n_';
const nestedName = (subject: string) => `${NESTED}${subject}`;

/** A window's counter item (keys.rateWindow): the scope's own count and its nested ones. */
const windowSchema = once(() => counterSchema(['count'], [NESTED]));

function counterUpdate(hit: CounterHit, window: number): { Key: Key; names: Record<string, string>; expression: string } {
  const names: Record<string, string> = { '#c': 'count', '#t': 'ttl' };
  const adds = ['#c :d'];
  (hit.nested ?? []).forEach((n, i) => {
    names[`#n${i}`] = nestedName(n.subject);
    adds.push(`#n${i} :d`);
  });
  return {
    Key: keys.rateWindow(hit.budget, hit.subject, window),
    names,
    expression: `ADD ${adds.join(', ')} SET #t = if_not_exists(#t, :ttl)`,
  };
}

/**
 * Fixed-window counters: one atomic ADD per item, kept in the table so that every function
 * instance shares them; items expire by TTL two windows later. A credential belongs to exactly one
 * actor, so its count lives in the actor's item: both stay exact for one write unit.
 */
export async function countHits(hit: CounterHit, now: Date): Promise<Count[]> {
  const { epoch, window } = windowOf(now);
  const update = counterUpdate(hit, window);
  const out = await ddb().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: update.Key,
      UpdateExpression: update.expression,
      ExpressionAttributeNames: update.names,
      ExpressionAttributeValues: { ':d': 1, ':ttl': (window + 2) * WINDOW_SECONDS },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  const resetSeconds = (window + 1) * WINDOW_SECONDS - epoch;
  // UPDATED_NEW returns every count the ADD moved, this hit included.
  const counts = readCounts(windowSchema(), { ...out.Attributes, ...update.Key });
  return [
    { budget: hit.budget, count: countOf(counts, 'count'), resetSeconds },
    ...(hit.nested ?? []).map((n) => ({ budget: n.budget, count: countOf(counts, nestedName(n.subject)), resetSeconds })),
  ];
}

/**
 * Takes back hits counted in the window of `countedAt` before the credential turned out not to
 * authenticate, so that a dead credential leaves nobody's budget spent.
 */
export async function uncountHits(hit: CounterHit, countedAt: Date): Promise<void> {
  const { window } = windowOf(countedAt);
  const update = counterUpdate(hit, window);
  await ddb().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: update.Key,
      UpdateExpression: update.expression,
      ExpressionAttributeNames: update.names,
      ExpressionAttributeValues: { ':d': -1, ':ttl': (window + 2) * WINDOW_SECONDS },
    }),
  );
}
