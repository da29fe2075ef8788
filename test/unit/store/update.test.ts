import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DeleteCommand, DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { resetDdbClient, tableName } from '../../../lib/store/client.js';
import { itemPresent, versionIs } from '../../../lib/store/conditions.js';
import { keys } from '../../../lib/store/keys.js';
import { applyUpdate, deleteIf, isConditionalCheckFailed, putItem, updateIf, updateReturning } from '../../../lib/store/update.js';

const ddb = mockClient(DynamoDBDocumentClient);
beforeEach(() => {
  ddb.reset();
  resetDdbClient();
});

const conditionFailed = () => Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' });
const key = keys.upload('U');
const inputs = <T>(command: new (input: T) => unknown) => ddb.commandCalls(command as never).map((c) => c.args[0].input);

describe('isConditionalCheckFailed', () => {
  it('recognises a failed condition by its name', () => {
    expect(isConditionalCheckFailed(conditionFailed())).toBe(true);
  });

  it('recognises nothing else', () => {
    expect([new Error('throttled'), undefined].map(isConditionalCheckFailed)).toEqual([false, false]);
  });
});

describe('putItem', () => {
  it('puts the item unconditionally when no condition is given', async () => {
    ddb.on(PutCommand).resolves({});
    expect(await putItem({ ...key, status: 'pending' })).toBe(true);
    expect(inputs(PutCommand)).toEqual([{ TableName: tableName(), Item: { ...key, status: 'pending' } }]);
  });

  it('answers false when its condition does not hold', async () => {
    ddb.on(PutCommand).rejects(conditionFailed());
    expect(await putItem({ ...key, status: 'pending' }, itemPresent())).toBe(false);
  });

  it('throws any other failure', async () => {
    ddb.on(PutCommand).rejects(new Error('throttled'));
    await expect(putItem({ ...key, status: 'pending' })).rejects.toThrow('throttled');
  });
});

describe('deleteIf', () => {
  it('deletes the item on its condition', async () => {
    ddb.on(DeleteCommand).resolves({});
    expect(await deleteIf(key, versionIs(2))).toBe(true);
    expect(inputs(DeleteCommand)).toEqual([
      {
        TableName: tableName(),
        Key: key,
        ConditionExpression: '#cnd0 = :cnd0',
        ExpressionAttributeNames: { '#cnd0': 'version' },
        ExpressionAttributeValues: { ':cnd0': 2 },
      },
    ]);
  });

  it('answers false when its condition does not hold', async () => {
    ddb.on(DeleteCommand).rejects(conditionFailed());
    expect(await deleteIf(key, versionIs(2))).toBe(false);
  });
});

describe('updateIf', () => {
  it('sets the fields and removes the others in one update on its condition', async () => {
    ddb.on(UpdateCommand).resolves({});
    expect(await updateIf(key, { status: 'ready', size: 3 }, itemPresent(), ['lease'])).toBe(true);
    expect(inputs(UpdateCommand)).toEqual([
      {
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET #set0 = :set0, #set1 = :set1 REMOVE #rm0',
        ConditionExpression: 'attribute_exists(#cnd0)',
        ExpressionAttributeNames: { '#set0': 'status', '#set1': 'size', '#rm0': 'lease', '#cnd0': 'PK' },
        ExpressionAttributeValues: { ':set0': 'ready', ':set1': 3 },
      },
    ]);
  });

  it('sends no attribute values for an update that only removes, under a condition that names none', async () => {
    ddb.on(UpdateCommand).resolves({});
    await updateIf(key, {}, itemPresent(), ['lease']);
    expect(inputs(UpdateCommand)).toEqual([
      {
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'REMOVE #rm0',
        ConditionExpression: 'attribute_exists(#cnd0)',
        ExpressionAttributeNames: { '#rm0': 'lease', '#cnd0': 'PK' },
      },
    ]);
  });

  it('answers false when its condition does not hold', async () => {
    ddb.on(UpdateCommand).rejects(conditionFailed());
    expect(await updateIf(key, { status: 'ready' }, itemPresent())).toBe(false);
  });
});

describe('updateReturning', () => {
  const write = { key, update: 'ADD #n :one', names: { '#n': 'attempts' }, values: { ':one': 1 } };

  it('answers the item as the update left it', async () => {
    ddb.on(UpdateCommand).resolves({ Attributes: { ...key, attempts: 2 } });
    expect(await updateReturning(write, itemPresent())).toEqual({ ...key, attempts: 2 });
  });

  it('issues the update with its condition, asking for the new image', async () => {
    ddb.on(UpdateCommand).resolves({ Attributes: { ...key, attempts: 2 } });
    await updateReturning(write, itemPresent());
    expect(inputs(UpdateCommand)).toEqual([
      {
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'ADD #n :one',
        ConditionExpression: 'attribute_exists(#cnd0)',
        ExpressionAttributeNames: { '#n': 'attempts', '#cnd0': 'PK' },
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'ALL_NEW',
      },
    ]);
  });

  it('answers undefined when its condition does not hold', async () => {
    ddb.on(UpdateCommand).rejects(conditionFailed());
    expect(await updateReturning(write, itemPresent())).toBeUndefined();
  });
});

describe('applyUpdate', () => {
  it('issues the update as written, with no condition', async () => {
    ddb.on(UpdateCommand).resolves({});
    await applyUpdate({ key, update: 'ADD #n :one', names: { '#n': 'attempts' }, values: { ':one': 1 } });
    expect(inputs(UpdateCommand)).toEqual([
      {
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'ADD #n :one',
        ExpressionAttributeNames: { '#n': 'attempts' },
        ExpressionAttributeValues: { ':one': 1 },
      },
    ]);
  });
});
