import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { resetDdbClient, tableName } from '../../../lib/store/client.js';
import { demoMarker, recordDemo } from '../../../lib/store/demo.js';
import { StoredItemInvalid } from '../../../lib/store/entity.js';

const ddb = mockClient(DynamoDBDocumentClient);
beforeEach(() => {
  ddb.reset();
  resetDdbClient();
});

const key = { PK: 'INSTALLATION', SK: 'DEMO' };
const marker = { user_id: 'U1', organisation_id: 'O1' };

describe('demoMarker', () => {
  it('reads the demo installation strongly consistently, without its key', async () => {
    ddb.on(GetCommand).resolves({ Item: { ...key, ...marker } });
    expect(await demoMarker()).toEqual(marker);
    expect(ddb.commandCalls(GetCommand).map((c) => c.args[0].input)).toEqual([{ TableName: tableName(), Key: key, ConsistentRead: true }]);
  });

  it('is undefined before a first start created one', async () => {
    ddb.on(GetCommand).resolves({});
    expect(await demoMarker()).toBeUndefined();
  });

  it('refuses a marker without its organisation, naming its key', async () => {
    ddb.on(GetCommand).resolves({ Item: { ...key, user_id: 'U1' } });
    await expect(demoMarker()).rejects.toThrow(StoredItemInvalid);
    await expect(demoMarker()).rejects.toThrow('INSTALLATION|DEMO');
  });
});

describe('recordDemo', () => {
  it('puts the marker only where there is none', async () => {
    ddb.on(PutCommand).resolves({});
    expect(await recordDemo(marker)).toBe(true);
    expect(ddb.commandCalls(PutCommand).map((c) => c.args[0].input)).toEqual([
      {
        TableName: tableName(),
        Item: { ...key, ...marker },
        ConditionExpression: 'attribute_not_exists(#cnd0)',
        ExpressionAttributeNames: { '#cnd0': 'PK' },
      },
    ]);
  });
});
