import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { countHit } from '../../../lib/store/rate-limits.js';
import { resetDdbClient } from '../../../lib/store/client.js';

const ddb = mockClient(DynamoDBDocumentClient);

beforeEach(() => {
  ddb.reset();
  resetDdbClient();
});

describe('countHit', () => {
  it('adds one to the counter of the current minute with a TTL two windows on', async () => {
    ddb.on(UpdateCommand).resolves({ Attributes: { count: 7 } });
    const now = new Date('2026-11-22T10:00:15Z');
    const result = await countHit('read-credential', 'T1', now);
    const input = ddb.commandCalls(UpdateCommand)[0]!.args[0].input;
    const window = Math.floor(now.getTime() / 60_000);
    expect(input.Key).toEqual({ PK: `RATE#read-credential#T1#${window}`, SK: 'RATE' });
    expect(input.UpdateExpression).toBe('ADD #c :one SET #t = if_not_exists(#t, :ttl)');
    expect(input.ExpressionAttributeValues).toEqual({ ':one': 1, ':ttl': (window + 2) * 60 });
    expect(result).toEqual({ count: 7, resetSeconds: 45 });
  });
});
