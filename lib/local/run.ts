import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { join, resolve } from 'node:path';
import { API_PREFIX } from '../domain/api-paths.js';
import { OPENAPI_PATH } from '../operations/kernel/router.js';
import { runMigrations } from '../migrations/index.js';
import { ensureTable } from '../store/schema.js';
import { ensureBucket } from '../files/s3.js';
import { ensureQueues, startPollers } from '../jobs/local.js';
import { SWEEP_INTERVAL_SECONDS } from '../queues/recovery.js';
import { sweep } from '../jobs/sweep.js';
import { ensureCatalogue, ensureDemo } from './demo.js';
import { startDynamoDbLocal, startS3, startSqs, type Emulator } from './emulators.js';
import { clearRuntimeInfo, localTokenSecret, useLocalServices, writeRuntimeInfo } from './environment.js';
import { createLocalServer } from './server.js';

/** Ctrl-C and supervisors expect a prompt stop; the exit hook kills a JVM that is still stopping. */
const STOP_DEADLINE_MS = 4_000;
const STOPPED = 'Stopped the API, DynamoDB Local, the S3 emulator and the SQS emulator';

/** The API on embedded emulators, persisted under dataDir, until SIGINT or SIGTERM. */
export async function runLocal(options: { port: number; dataDir: string }): Promise<void> {
  const { port } = options;
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });

  const emulators: Emulator[] = [];
  let server: Server | undefined;
  let stopping = false;
  let beforeStop: () => Promise<void> = async () => {};
  const stop = async (code: number) => {
    // Ctrl-C reaches this process twice under npm: from the terminal and forwarded by npm.
    if (stopping) return;
    stopping = true;
    setTimeout(() => {
      if (code === 0) console.log(`${STOPPED} (the emulators that had not stopped within ${STOP_DEADLINE_MS / 1000} s were killed).`);
      process.exit(code);
    }, STOP_DEADLINE_MS).unref();
    clearRuntimeInfo(dataDir);
    server?.close();
    server?.closeIdleConnections();
    await beforeStop().catch((error: unknown) => console.error(`stop: ${(error as Error).message}`));
    await Promise.allSettled(emulators.map((e) => e.stop()));
    if (code === 0) console.log(`${STOPPED}.`);
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));

  try {
    const dynamodb = await startDynamoDbLocal({ dataDir: join(dataDir, 'dynamodb') });
    emulators.push(dynamodb);
    const files = await startS3({ dataDir: join(dataDir, 's3') });
    emulators.push(files);
    const queues = await startSqs({});
    emulators.push(queues);
    useLocalServices({ dynamodb: dynamodb.endpoint, s3: files.endpoint, sqs: queues.endpoint, secret: localTokenSecret(dataDir) });

    await ensureTable();
    await ensureBucket();
    await ensureQueues('');
    const pollers = await startPollers({ streamPosition: join(dataDir, 'stream-position.json') });
    // The AWS stack's schedule: stalled work is queued again.
    const sweepNow = () => void sweep(new Date()).catch((error: unknown) => console.error(`sweep: ${(error as Error).message}`));
    const sweeping = setInterval(sweepNow, SWEEP_INTERVAL_SECONDS * 1000);
    sweepNow();
    beforeStop = async () => {
      clearInterval(sweeping);
      await pollers.stop();
    };
    const demo = await ensureDemo(dataDir, new Date());
    const catalogue = await ensureCatalogue(new Date());
    for (const step of await runMigrations(new Date())) if (step.status === 'applied') console.log(`Data migration ${step.name}: ${step.result}.`);

    const listening = await createLocalServer();
    server = listening;
    await new Promise<void>((res, rej) => listening.once('error', rej).listen(port, () => res()));
    writeRuntimeInfo(dataDir, { pid: process.pid, dynamodb: dynamodb.endpoint, s3: files.endpoint, sqs: queues.endpoint, port });

    console.log(`Assessment Operations API listening on http://localhost:${port}${API_PREFIX}`);
    console.log(`OpenAPI document: http://localhost:${port}${OPENAPI_PATH}`);
    console.log(`Console (passkey sign-in, tokens, users): http://localhost:${port}/console/`);
    if (demo.enrolment) console.log(`  Register the demo operator's passkey: open the enrolment_url in ${demo.path} in a browser on this machine.`);
    console.log(`${demo.created ? 'Demo installation created.' : 'Demo installation found.'} Its tokens are in ${demo.path}:`);
    console.log(
      `  curl -H "Authorization: Bearer $(node -p 'require("${demo.path}").administration_token')" http://localhost:${port}${API_PREFIX}/organisations`,
    );
    if (catalogue)
      console.log(
        `Loaded the sample catalogue ${catalogue} (not the ISM). Import the official release with: npm run --silent admin -- catalogue import --path DIR`,
      );
    console.log('Issue more tokens with: npm run --silent admin -- token issue --help');
  } catch (error) {
    console.error(`Could not start: ${(error as Error).message}`);
    await stop(1);
  }
}
