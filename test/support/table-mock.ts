import { BatchGetCommand, type DynamoDBDocumentClientResolvedConfig, GetCommand, type ServiceInputTypes, type ServiceOutputTypes } from '@aws-sdk/lib-dynamodb';
import type { AwsStub } from 'aws-sdk-client-mock';
import { tableName } from '../../lib/store/client.js';
import type { Key } from '../../lib/store/keys.js';
import { type Item, keyString } from '../../lib/store/read.js';

type DocumentClientMock = AwsStub<ServiceInputTypes, ServiceOutputTypes, DynamoDBDocumentClientResolvedConfig>;

/**
 * Items a mocked document client answers reads with, for unit tests of modules that read several
 * items before they decide what to write: GetItem and BatchGetItem answer what `put` stored.
 * What the module writes is asserted on the mock's commands; nothing written is read back.
 */
export function mockedItems(ddb: DocumentClientMock) {
  const stored = new Map<string, Item>();
  const read = (key: Key) => stored.get(keyString(key));
  return {
    put(...items: Item[]): void {
      for (const item of items) stored.set(keyString(item), item);
    },
    read,
    /** Registers the read answers; call after each reset of the mock. */
    answer(): void {
      stored.clear();
      ddb.on(GetCommand).callsFake((input: { Key: Key }) => ({ Item: read(input.Key) }));
      ddb.on(BatchGetCommand).callsFake((input: { RequestItems: Record<string, { Keys: Key[] }> }) => ({
        Responses: { [tableName()]: input.RequestItems[tableName()]!.Keys.flatMap((k) => read(k) ?? []) },
      }));
    },
  };
}
