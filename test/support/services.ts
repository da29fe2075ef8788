import { randomBytes } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { inject } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import { SETTINGS } from '../../lib/config.js';
import { ensureBucket } from '../../lib/files/s3.js';
import { ensureQueues } from '../../lib/jobs/local.js';
import { useLocalServices } from '../../lib/local/environment.js';
import { dynamoDbEndpoint } from '../../lib/store/client.js';
import { ensureTable } from '../../lib/store/schema.js';

/** The tables this worker's test files created and have not dropped yet, with where each lives. */
const created: { TableName: string; endpoint: ReturnType<typeof dynamoDbEndpoint> }[] = [];

/** Points this test file at the shared emulators, in a table and bucket of its own. */
export async function useTestServices(overrides: Record<string, string> = {}): Promise<{ tableName: string; secret: string }> {
  // Worker processes are reused across files: start every file from the documented defaults.
  for (const name of Object.keys(SETTINGS)) delete process.env[name];
  Object.assign(process.env, overrides);
  const tableName = `t-${newUlid().toLowerCase()}`;
  process.env.BUCKET_NAME = `b-${newUlid().toLowerCase()}`;
  const secret = randomBytes(32).toString('hex');
  // A database of its own in the shared DynamoDB Local: DynamoDB Local reads a stream in time that grows with every record of its database.
  process.env.DYNAMODB_LOCAL_DATABASE = tableName.replace(/[^a-z0-9]/g, '');
  useLocalServices({ dynamodb: inject('dynamodbEndpoint'), s3: inject('s3Endpoint'), sqs: inject('sqsEndpoint'), secret, tableName });
  await ensureTable();
  created.push({ TableName: tableName, endpoint: dynamoDbEndpoint() });
  await ensureBucket();
  await ensureQueues(`${tableName}-`);
  return { tableName, secret };
}

/**
 * Drops the tables this file created (test/support/drop-tables.ts, after the file's own hooks). The
 * shared DynamoDB Local keeps every table until the run ends, and the expiry job of each database
 * scans its tables with TTL every second: a finished file's table cost the JVM CPU for the rest of the run.
 */
export async function dropTestTables(): Promise<void> {
  for (const { TableName, endpoint } of created.splice(0)) {
    const client = new DynamoDBClient(endpoint);
    await client.send(new DeleteTableCommand({ TableName }));
    client.destroy();
  }
}
