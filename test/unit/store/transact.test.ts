import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { TransactionCanceledException, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { commit } from '../../../lib/store/transact.js';
import { itemAbsent, versionIs } from '../../../lib/store/conditions.js';
import { resetDdbClient, tableName } from '../../../lib/store/client.js';

const ddb = mockClient(DynamoDBDocumentClient);

const cancelled = (codes: string[], item?: Record<string, AttributeValue>) =>
  new TransactionCanceledException({
    message: 'cancelled',
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code, ...(Code === 'ConditionalCheckFailed' && item ? { Item: item } : {}) })),
  });

beforeEach(() => {
  ddb.reset();
  resetDdbClient();
});

describe('commit', () => {
  it('sends every item in one TransactWriteItems, with its condition and ALL_OLD where a mapper is given', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    await commit([
      { kind: 'put', item: { PK: 'A', SK: 'A', v: 1 }, condition: itemAbsent() },
      { kind: 'put', item: { PK: 'B', SK: 'B' }, condition: versionIs(3), onConditionFailed: () => new Error('stale') },
    ]);
    expect(ddb.commandCalls(TransactWriteCommand)[0]!.args[0].input).toEqual({
      TransactItems: [
        {
          Put: {
            TableName: tableName(),
            Item: { PK: 'A', SK: 'A', v: 1 },
            ConditionExpression: 'attribute_not_exists(#cnd0)',
            ExpressionAttributeNames: { '#cnd0': 'PK' },
          },
        },
        {
          Put: {
            TableName: tableName(),
            Item: { PK: 'B', SK: 'B' },
            ConditionExpression: '#cnd0 = :cnd0',
            ExpressionAttributeNames: { '#cnd0': 'version' },
            ExpressionAttributeValues: { ':cnd0': 3 },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
      ],
    });
  });

  it('answers a failed condition with that item mapper, given the old item', async () => {
    ddb.on(TransactWriteCommand).rejects(cancelled(['None', 'ConditionalCheckFailed'], { version: { N: '4' } }));
    const error = await commit([
      { kind: 'put', item: { PK: 'A', SK: 'A' } },
      { kind: 'put', item: { PK: 'B', SK: 'B' }, condition: versionIs(3), onConditionFailed: (old) => new Error(`now ${String(old?.version)}`) },
    ]).catch((e: Error) => e);
    expect((error as Error).message).toBe('now 4');
  });

  it('retries a transaction conflict and then succeeds', async () => {
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled(['TransactionConflict']))
      .resolves({});
    await commit([{ kind: 'put', item: { PK: 'A', SK: 'A' } }]);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(2);
  });

  it('names a transaction refused for capacity as throttled, without retrying it', async () => {
    ddb.on(TransactWriteCommand).rejects(cancelled(['None', 'ThrottlingError']));
    await expect(commit([{ kind: 'put', item: { PK: 'A', SK: 'A' } }])).rejects.toMatchObject({ name: 'TransactionThrottledError' });
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });

  it('sends nothing for no items', async () => {
    await commit([]);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('refuses more than 100 items', async () => {
    const items = Array.from({ length: 101 }, (_, i) => ({ kind: 'put' as const, item: { PK: `P${i}`, SK: 'S' } }));
    await expect(commit(items)).rejects.toThrow(/at most 100/);
  });
});
