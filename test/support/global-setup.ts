import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal, startS3, startSqs, type Emulator } from '../../lib/local/emulators.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    s3Endpoint: string;
    sqsEndpoint: string;
  }
}

/** The projects whose tests reach the emulators through inject(). */
const EMULATOR_PROJECTS = new Set(['integration', 'api', 'browser', 'infra']);

/**
 * The root project's global setup: one DynamoDB Local (in memory), one s3rver and one local SQS
 * for the whole run, whatever projects it covers; every project inherits the root's provided
 * endpoints. A run of unit tests alone starts none of them.
 */
export default async function setup(root: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (!root.vitest.projects.some((p) => EMULATOR_PROJECTS.has(p.name))) return undefined;
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const dir = mkdtempSync(join(tmpdir(), 'aop-s3-'));
  const started: Emulator[] = [];
  const dynamodb = await startDynamoDbLocal({ databasePerCredential: true });
  started.push(dynamodb);
  const s3 = await startS3({ dataDir: dir });
  started.push(s3);
  const sqs = await startSqs({});
  started.push(sqs);
  root.provide('dynamodbEndpoint', dynamodb.endpoint);
  root.provide('sqsEndpoint', sqs.endpoint);
  root.provide('s3Endpoint', s3.endpoint);
  return async () => {
    await Promise.allSettled(started.map((e) => e.stop()));
    rmSync(dir, { recursive: true, force: true });
  };
}
