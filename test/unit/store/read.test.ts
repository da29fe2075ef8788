import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { resetDdbClient, tableName } from '../../../lib/store/client.js';
import { queryPage, queryPages, queryUpTo } from '../../../lib/store/read.js';

const ddb = mockClient(DynamoDBDocumentClient);

beforeEach(() => {
  ddb.reset();
  resetDdbClient();
});

const input = { KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': 'P' } };
const items = (...sks: string[]) => sks.map((SK) => ({ PK: 'P', SK }));
const sent = () => ddb.commandCalls(QueryCommand).map((c) => c.args[0].input);

describe('queryPages', () => {
  it('follows LastEvaluatedKey until the query ends', async () => {
    ddb
      .on(QueryCommand)
      .resolvesOnce({ Items: items('a'), LastEvaluatedKey: { PK: 'P', SK: 'a' } })
      .resolvesOnce({ Items: items('b') });
    const pages: unknown[] = [];
    for await (const page of queryPages(input)) pages.push(page);
    expect(pages).toEqual([items('a'), items('b')]);
    expect(sent()).toEqual([
      { ...input, TableName: tableName(), ExclusiveStartKey: undefined },
      { ...input, TableName: tableName(), ExclusiveStartKey: { PK: 'P', SK: 'a' } },
    ]);
  });

  it('stops after maxPages requests', async () => {
    ddb.on(QueryCommand).resolves({ Items: items('a'), LastEvaluatedKey: { PK: 'P', SK: 'a' } });
    for await (const _ of queryPages(input, { maxPages: 2 }));
    expect(sent()).toHaveLength(2);
  });
});

describe('queryUpTo', () => {
  it('asks each request for what remains of the limit, and stops once it is read', async () => {
    ddb
      .on(QueryCommand)
      .resolvesOnce({ Items: items('a', 'b'), LastEvaluatedKey: { PK: 'P', SK: 'b' } })
      .resolvesOnce({ Items: items('c'), LastEvaluatedKey: { PK: 'P', SK: 'c' } });
    expect(await queryUpTo(input, 3)).toEqual(items('a', 'b', 'c'));
    expect(sent()).toEqual([
      { ...input, Limit: 3, TableName: tableName(), ExclusiveStartKey: undefined },
      { ...input, Limit: 1, TableName: tableName(), ExclusiveStartKey: { PK: 'P', SK: 'b' } },
    ]);
  });

  it('starts after the key given, and asks for at most 1,000 items a request', async () => {
    ddb.on(QueryCommand).resolves({ Items: items('z') });
    await queryUpTo(input, Number.POSITIVE_INFINITY, { PK: 'P', SK: 'y' });
    expect(sent()).toEqual([{ ...input, Limit: 1000, TableName: tableName(), ExclusiveStartKey: { PK: 'P', SK: 'y' } }]);
  });
});

describe('queryPage', () => {
  it('reads through the end of the page and answers its items alone', async () => {
    ddb.on(QueryCommand).resolves({ Items: items('a', 'b', 'c', 'd'), LastEvaluatedKey: { PK: 'P', SK: 'd' } });
    expect(await queryPage(input, { number: 2, size: 2 })).toEqual(items('c', 'd'));
    expect(sent()).toEqual([{ ...input, Limit: 4, TableName: tableName(), ExclusiveStartKey: undefined }]);
  });
});
