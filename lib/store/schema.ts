import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
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

/** The table's latest stream, which the local stream reader follows in place of Lambda's event source mapping. */
export async function tableStreamArn(): Promise<string> {
  const table = await ddb().send(new DescribeTableCommand({ TableName: tableName() }));
  const stream = table.Table?.LatestStreamArn;
  if (!stream) throw new Error(`table ${tableName()} has no stream`);
  return stream;
}

/** Whether a DynamoDB endpoint answers yet: the local runtime waits on it while DynamoDB Local starts. */
export async function endpointAnswers(endpoint: string): Promise<boolean> {
  const client = new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
  try {
    await client.send(new ListTablesCommand({ Limit: 1 }));
    return true;
  } catch {
    return false;
  } finally {
    client.destroy();
  }
}
