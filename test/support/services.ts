import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { ulid } from 'ulid';
import { SETTINGS } from '../../lib/config.js';
import { ensureBucket } from '../../lib/files/s3.js';
import { ensureQueues } from '../../lib/jobs/local.js';
import { useLocalServices } from '../../lib/local/environment.js';
import { ensureTable } from '../../lib/store/schema.js';

/** Points this test file at the shared emulators, in a table and bucket of its own. */
export async function useTestServices(overrides: Record<string, string> = {}): Promise<{ tableName: string; secret: string }> {
  // Worker processes are reused across files: start every file from the documented defaults.
  for (const name of Object.keys(SETTINGS)) delete process.env[name];
  Object.assign(process.env, overrides);
  const tableName = `t-${ulid().toLowerCase()}`;
  process.env.BUCKET_NAME = `b-${ulid().toLowerCase()}`;
  const secret = randomBytes(32).toString('hex');
  // A database of its own in the shared DynamoDB Local: DynamoDB Local reads a stream in time that grows with every record of its database.
  process.env.DYNAMODB_LOCAL_DATABASE = tableName.replace(/[^a-z0-9]/g, '');
  useLocalServices({ dynamodb: inject('dynamodbEndpoint'), s3: inject('s3Endpoint'), sqs: inject('sqsEndpoint'), secret, tableName });
  await ensureTable();
  await ensureBucket();
  await ensureQueues(`${tableName}-`);
  return { tableName, secret };
}
