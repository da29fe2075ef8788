import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { BatchGetCommand, BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { putAll } from '../../../lib/store/batch.js';
import { resetDdbClient, tableName } from '../../../lib/store/client.js';
import { getMany } from '../../../lib/store/read.js';
import { backoffDelay, retryUntil, type Backoff } from '../../../lib/store/retry.js';

const backoff: Backoff = { attempts: 4, baseMs: 10, capMs: 25 };

describe('backoffDelay', () => {
  it('doubles its bound with each retry', () => {
    expect([1, 2].map((retry) => backoffDelay(backoff, retry, () => 1))).toEqual([10, 20]);
  });

  it('never exceeds the cap', () => {
    expect(backoffDelay(backoff, 10, () => 1)).toBe(25);
  });

  it('draws the pause uniformly below the bound (full jitter)', () => {
    expect(backoffDelay(backoff, 2, () => 0.25)).toBe(5);
  });
});

describe('retryUntil', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('calls once, without a pause, when the first attempt succeeds', async () => {
    const attempt = vi.fn(async () => true);
    await retryUntil(backoff, attempt, () => new Error('exhausted'));
    expect(attempt.mock.calls).toEqual([[1]]);
  });

  it('pauses between attempts until one succeeds', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(1);
    const started: number[] = [];
    const done = retryUntil(
      backoff,
      async (n) => {
        started.push(Date.now());
        return n === 3;
      },
      () => new Error('exhausted'),
    );
    await vi.runAllTimersAsync();
    await done;
    expect(started.slice(1).map((t, i) => t - started[i]!)).toEqual([10, 20]);
  });

  it('throws the exhausted error after the last attempt fails', async () => {
    const attempt = vi.fn(async () => false);
    const done = retryUntil(backoff, attempt, () => new Error('exhausted')).catch((e: Error) => e);
    await vi.runAllTimersAsync();
    expect(((await done) as Error).message).toBe('exhausted');
    expect(attempt).toHaveBeenCalledTimes(4);
  });

  it('ends at once when an attempt throws', async () => {
    const attempt = vi.fn(async () => {
      throw new Error('broken');
    });
    await expect(retryUntil(backoff, attempt, () => new Error('exhausted'))).rejects.toThrow('broken');
    expect(attempt).toHaveBeenCalledTimes(1);
  });
});

describe('unprocessed batch items', () => {
  const ddb = mockClient(DynamoDBDocumentClient);

  beforeEach(() => {
    ddb.reset();
    resetDdbClient();
  });

  it('getMany asks again for the keys a response left unprocessed', async () => {
    ddb
      .on(BatchGetCommand)
      .resolvesOnce({ Responses: { [tableName()]: [{ PK: 'A', SK: 'A' }] }, UnprocessedKeys: { [tableName()]: { Keys: [{ PK: 'B', SK: 'B' }] } } })
      .resolvesOnce({ Responses: { [tableName()]: [{ PK: 'B', SK: 'B' }] } });
    const found = await getMany([
      { PK: 'A', SK: 'A' },
      { PK: 'B', SK: 'B' },
    ]);
    expect([...found.keys()]).toEqual(['A|A', 'B|B']);
    expect(ddb.commandCalls(BatchGetCommand)[1]!.args[0].input).toEqual({
      RequestItems: { [tableName()]: { Keys: [{ PK: 'B', SK: 'B' }], ConsistentRead: true } },
    });
  });

  it('getMany answers keys that stay unprocessed as an UnprocessedItemsError', async () => {
    ddb.on(BatchGetCommand).resolves({ UnprocessedKeys: { [tableName()]: { Keys: [{ PK: 'A', SK: 'A' }] } } });
    vi.useFakeTimers();
    const done = getMany([{ PK: 'A', SK: 'A' }]).catch((e: Error) => e);
    await vi.runAllTimersAsync();
    vi.useRealTimers();
    expect(await done).toMatchObject({ name: 'UnprocessedItemsError' });
    expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(8);
  });

  it('putAll writes again the items a response left unprocessed', async () => {
    const unprocessed = [{ PutRequest: { Item: { PK: 'B', SK: 'B' } } }];
    ddb
      .on(BatchWriteCommand)
      .resolvesOnce({ UnprocessedItems: { [tableName()]: unprocessed } })
      .resolvesOnce({});
    await putAll([
      { PK: 'A', SK: 'A' },
      { PK: 'B', SK: 'B' },
    ]);
    expect(ddb.commandCalls(BatchWriteCommand)[1]!.args[0].input).toEqual({ RequestItems: { [tableName()]: unprocessed } });
  });
});
