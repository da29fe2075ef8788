import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { countHits, uncountHits } from '../../../lib/store/rate-limits.js';
import { resetDdbClient } from '../../../lib/store/client.js';

const ddb = mockClient(DynamoDBDocumentClient);

beforeEach(() => {
  ddb.reset();
  resetDdbClient();
});

const now = new Date('2026-11-22T10:00:15Z');
const window = Math.floor(now.getTime() / 60_000);

describe('countHits', () => {
  it('adds one to the counter of the current minute with a TTL two windows on', async () => {
    ddb.on(UpdateCommand).resolves({ Attributes: { count: 7 } });
    const result = await countHits({ budget: 'read-organisation', subject: 'O1' }, now);
    const input = ddb.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(input.Key).toEqual({ PK: `RATE#read-organisation#O1#${window}`, SK: 'RATE' });
    expect(input.UpdateExpression).toBe('ADD #c :d SET #t = if_not_exists(#t, :ttl)');
    expect(input.ExpressionAttributeValues).toEqual({ ':d': 1, ':ttl': (window + 2) * 60 });
    expect(result).toEqual([{ budget: 'read-organisation', count: 7, resetSeconds: 45 }]);
  });

  it('counts a nested credential in the same item and answers both counts', async () => {
    ddb.on(UpdateCommand).resolves({ Attributes: { count: 9, n_T1: 4 } });
    const result = await countHits({ budget: 'read-actor', subject: 'U1', nested: [{ budget: 'read-credential', subject: 'T1' }] }, now);
    const input = ddb.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(input.Key).toEqual({ PK: `RATE#read-actor#U1#${window}`, SK: 'RATE' });
    expect(input.UpdateExpression).toBe('ADD #c :d, #n0 :d SET #t = if_not_exists(#t, :ttl)');
    expect(input.ExpressionAttributeNames).toMatchObject({ '#n0': 'n_T1' });
    expect(result.map((c) => [c.budget, c.count])).toEqual([
      ['read-actor', 9],
      ['read-credential', 4],
    ]);
  });
});

describe('uncountHits', () => {
  it('subtracts one from every counter of the item in the window it was counted in', async () => {
    ddb.on(UpdateCommand).resolves({});
    await uncountHits({ budget: 'read-actor', subject: 'U1', nested: [{ budget: 'read-credential', subject: 'T1' }] }, now);
    const input = ddb.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(input.Key).toEqual({ PK: `RATE#read-actor#U1#${window}`, SK: 'RATE' });
    expect(input.UpdateExpression).toBe('ADD #c :d, #n0 :d SET #t = if_not_exists(#t, :ttl)');
    expect(input.ExpressionAttributeValues).toMatchObject({ ':d': -1 });
  });
});

describe('a malformed window counter', () => {
  it('is refused, naming its key', async () => {
    ddb.on(UpdateCommand).resolves({ Attributes: { count: 'many' } });
    await expect(countHits({ budget: 'read-organisation', subject: 'O1' }, now)).rejects.toThrow(`RATE#read-organisation#O1#${window}|RATE`);
  });
});
