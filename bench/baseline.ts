import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../lib/store/client.js';
import { percentile } from './stats.js';

export interface BaselineFigures {
  samples: number;
  p50_ms: number;
  p95_ms: number;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * P2's floor: a strongly consistent GetItem of a small item on the same DynamoDB Local, through
 * the same SDK client, one after another, as many times as the API read it is compared with.
 */
export async function rawGetItem(samples: number): Promise<BaselineFigures> {
  const Key = { PK: 'BENCH#BASELINE', SK: 'ITEM' };
  await ddb().send(new PutCommand({ TableName: tableName(), Item: { ...Key, value: 'small' } }));
  const read = () => ddb().send(new GetCommand({ TableName: tableName(), Key, ConsistentRead: true }));
  for (let i = 0; i < 10; i++) await read();
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    await read();
    times.push(performance.now() - started);
  }
  return { samples, p50_ms: round2(percentile(times, 50)), p95_ms: round2(percentile(times, 95)) };
}
