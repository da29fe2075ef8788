import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { resetDdbClient, tableName } from '../../../lib/store/client.js';
import { keys } from '../../../lib/store/keys.js';
import { scanEach } from '../../../lib/store/migration-scan.js';
import type { Item } from '../../../lib/store/read.js';

const ddb = mockClient(DynamoDBDocumentClient);
beforeEach(() => {
  ddb.reset();
  resetDdbClient();
});

const first = { ...keys.user('A'), entity: 'user' };
const second = { ...keys.user('B'), entity: 'user' };

describe('scanEach', () => {
  it('hands every item of every page to the callback, in order', async () => {
    ddb
      .on(ScanCommand)
      .resolvesOnce({ Items: [first], LastEvaluatedKey: keys.user('A') })
      .resolves({ Items: [second] });
    const seen: Item[] = [];
    await scanEach({}, (item) => {
      seen.push(item);
    });
    expect(seen).toEqual([first, second]);
  });

  it('reads each page strongly consistent from where the last ended, with the filter given', async () => {
    ddb
      .on(ScanCommand)
      .resolvesOnce({ Items: [first], LastEvaluatedKey: keys.user('A') })
      .resolves({ Items: [second] });
    const filter = { FilterExpression: '#e = :e', ExpressionAttributeNames: { '#e': 'entity' }, ExpressionAttributeValues: { ':e': 'user' } };
    await scanEach(filter, () => undefined);
    expect(ddb.commandCalls(ScanCommand).map((c) => c.args[0].input)).toEqual([
      { ...filter, TableName: tableName(), ExclusiveStartKey: undefined, ConsistentRead: true },
      { ...filter, TableName: tableName(), ExclusiveStartKey: keys.user('A'), ConsistentRead: true },
    ]);
  });
});
