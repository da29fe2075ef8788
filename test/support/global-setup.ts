import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal, startS3, startSqs, type Emulator } from '../../lib/local/emulators.js';
import buildOperatorCli from './cli-build.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    s3Endpoint: string;
    sqsEndpoint: string;
    /** A directory of this run's own, removed when the run ends (test/support/scratch.ts). */
    scratchDir: string;
  }
}

/** The projects whose tests reach the emulators through inject(). */
const EMULATOR_PROJECTS = new Set(['integration', 'api', 'browser', 'infra']);
/** The projects whose tests run the compiled operator CLI (test/support/cli.ts, test/unit/admin/aws-stage.test.ts). */
const CLI_PROJECTS = new Set(['unit', 'api']);

/**
 * The root project's global setup, once per run whatever projects it covers: the operator CLI
 * compiled once (it was compiled by the unit and the API project each, two esbuild builds a run),
 * and one DynamoDB Local (in memory), one s3rver and one local SQS. Every project inherits what
 * the root provides. A run of unit tests alone starts no emulator. The run's scratch directory
 * goes with the run, whatever a file that wrote there left behind.
 */
export default async function setup(root: TestProject): Promise<() => Promise<void>> {
  const runs = (names: Set<string>) => root.vitest.projects.some((p) => names.has(p.name));
  const scratch = mkdtempSync(join(tmpdir(), 'aop-run-'));
  root.provide('scratchDir', scratch);
  const teardowns: (() => unknown)[] = [() => rmSync(scratch, { recursive: true, force: true })];
  if (runs(CLI_PROJECTS)) teardowns.push(await buildOperatorCli(root));
  if (runs(EMULATOR_PROJECTS)) teardowns.push(await startEmulators(root));
  return async () => {
    for (const teardown of teardowns.reverse()) await teardown();
  };
}

async function startEmulators(root: TestProject): Promise<() => Promise<void>> {
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
