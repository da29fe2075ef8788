import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { ddb, tableName } from './client.js';
import { GSIS, TABLE_KEYS, TABLE_STREAM } from './keys.js';

const STREAM = { StreamEnabled: true, StreamViewType: TABLE_STREAM } as const;

/**
 * Creates the single table with its indexes, TTL and stream when it is missing (local runtime and
 * tests); a table created before jobs were dispatched from the stream gets its stream.
 */
export async function ensureTable(): Promise<void> {
  const client = ddb();
  const TableName = tableName();
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName }));
    if (!Table?.StreamSpecification?.StreamEnabled) await client.send(new UpdateTableCommand({ TableName, StreamSpecification: STREAM }));
    return;
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  const attributes = new Set<string>([TABLE_KEYS.partition, TABLE_KEYS.sort, ...GSIS.flatMap((g) => [g.partition, g.sort])]);
  await client.send(
    new CreateTableCommand({
      TableName,
      BillingMode: 'PAY_PER_REQUEST',
      StreamSpecification: STREAM,
      AttributeDefinitions: [...attributes].map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: TABLE_KEYS.partition, KeyType: 'HASH' },
        { AttributeName: TABLE_KEYS.sort, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: GSIS.map((g) => ({
        IndexName: g.name,
        KeySchema: [
          { AttributeName: g.partition, KeyType: 'HASH' },
          { AttributeName: g.sort, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
    }),
  );
  await waitUntilTableExists({ client, maxWaitTime: 30 }, { TableName });
  await client.send(new UpdateTimeToLiveCommand({ TableName, TimeToLiveSpecification: { AttributeName: TABLE_KEYS.ttl, Enabled: true } }));
}
