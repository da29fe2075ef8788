import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client.js';
import { keys } from './keys.js';

export const WINDOW_SECONDS = 60;

/**
 * Fixed-window counter: one atomic ADD per request, kept in the table so that every function
 * instance shares it. Items expire by TTL two windows later.
 */
export async function countHit(budget: string, subject: string, now: Date): Promise<{ count: number; resetSeconds: number }> {
  const epoch = Math.floor(now.getTime() / 1000);
  const window = Math.floor(epoch / WINDOW_SECONDS);
  const out = await ddb().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.rateWindow(budget, subject, window),
      UpdateExpression: 'ADD #c :one SET #t = if_not_exists(#t, :ttl)',
      ExpressionAttributeNames: { '#c': 'count', '#t': 'ttl' },
      ExpressionAttributeValues: { ':one': 1, ':ttl': (window + 2) * WINDOW_SECONDS },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return { count: Number(out.Attributes?.count ?? 1), resetSeconds: (window + 1) * WINDOW_SECONDS - epoch };
}
