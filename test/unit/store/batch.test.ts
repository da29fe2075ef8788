import { beforeEach, describe, expect, it, vi } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { deleteAll, putAll } from '../../../lib/store/batch.js';
import { resetDdbClient, tableName } from '../../../lib/store/client.js';
import { keys } from '../../../lib/store/keys.js';
import { UnprocessedItemsError } from '../../../lib/store/retry.js';

const ddb = mockClient(DynamoDBDocumentClient);
beforeEach(() => {
  ddb.reset();
  resetDdbClient();
  ddb.on(BatchWriteCommand).resolves({});
});

const entries = (n: number) => Array.from({ length: n }, (_, i) => ({ ...keys.catalogueEntry('R', i), position: i }));
const requests = () => ddb.commandCalls(BatchWriteCommand).map((c) => c.args[0].input.RequestItems?.[tableName()] ?? []);

describe('putAll', () => {
  it('puts the items in requests of 25 at most', async () => {
    await putAll(entries(60));
    expect(requests().map((r) => r.length)).toEqual([25, 25, 10]);
  });

  it('issues each item as an unconditional PutRequest of the table', async () => {
    const [item] = entries(1);
    await putAll([item!]);
    expect(ddb.commandCalls(BatchWriteCommand).map((c) => c.args[0].input)).toEqual([{ RequestItems: { [tableName()]: [{ PutRequest: { Item: item } }] } }]);
  });

  it('sends the unprocessed items again until none is left', async () => {
    const [first, second] = entries(2);
    ddb
      .on(BatchWriteCommand)
      .resolvesOnce({ UnprocessedItems: { [tableName()]: [{ PutRequest: { Item: second! } }] } })
      .resolves({});
    await putAll([first!, second!]);
    expect(requests()).toEqual([[{ PutRequest: { Item: first } }, { PutRequest: { Item: second } }], [{ PutRequest: { Item: second } }]]);
  });

  it('gives up with UnprocessedItemsError when items stay unprocessed through every retry', async () => {
    const [item] = entries(1);
    ddb.on(BatchWriteCommand).resolves({ UnprocessedItems: { [tableName()]: [{ PutRequest: { Item: item! } }] } });
    vi.useFakeTimers();
    const outcome = putAll([item!]).catch((error: unknown) => error);
    await vi.runAllTimersAsync();
    vi.useRealTimers();
    expect(await outcome).toBeInstanceOf(UnprocessedItemsError);
  });

  it('sends nothing for no items', async () => {
    await putAll([]);
    expect(requests()).toEqual([]);
  });
});

describe('deleteAll', () => {
  it('deletes by key only, whatever else the keys carry', async () => {
    await deleteAll([{ ...keys.catalogueEntry('R', 1), position: 1 } as ReturnType<typeof keys.catalogueEntry>]);
    expect(ddb.commandCalls(BatchWriteCommand).map((c) => c.args[0].input)).toEqual([
      { RequestItems: { [tableName()]: [{ DeleteRequest: { Key: keys.catalogueEntry('R', 1) } }] } },
    ]);
  });
});
