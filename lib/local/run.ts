import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startDynamoDbLocal, startS3, startSqs, type Emulator } from './emulators.js';
import type { Serving } from './serve.js';

/** Ctrl-C and supervisors expect a prompt stop; the exit hook kills a JVM that is still stopping. */
const STOP_DEADLINE_MS = 4_000;
const STOPPED = 'Stopped the API, DynamoDB Local, the S3 emulator and the SQS emulator';

/** The API on embedded emulators, persisted under dataDir, until SIGINT or SIGTERM. */
export async function runLocal(options: { port: number; dataDir: string }): Promise<void> {
  const { port } = options;
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });

  const emulators: Emulator[] = [];
  const serving: Serving = {};
  let stopping = false;
  const stop = async (code: number) => {
    // Ctrl-C reaches this process twice under npm: from the terminal and forwarded by npm.
    if (stopping) return;
    stopping = true;
    setTimeout(() => {
      if (code === 0) console.log(`${STOPPED} (the emulators that had not stopped within ${STOP_DEADLINE_MS / 1000} s were killed).`);
      process.exit(code);
    }, STOP_DEADLINE_MS).unref();
    (await import('./environment.js')).clearRuntimeInfo(dataDir);
    serving.server?.close();
    serving.server?.closeIdleConnections();
    await serving.beforeStop?.().catch((error: unknown) => console.error(`stop: ${(error as Error).message}`));
    await Promise.allSettled(emulators.map((e) => e.stop()));
    if (code === 0) console.log(`${STOPPED}.`);
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));

  try {
    const started = async (starting: Promise<Emulator>) => {
      const emulator = await starting;
      emulators.push(emulator);
      return emulator;
    };
    // DynamoDB Local's JVM takes seconds to start, most of them CPU: the other emulators start and
    // the runtime's modules load (about 2 s of CPU, lib/local/serve.ts) meanwhile, not after it.
    const [dynamodb, files, queues, { serve }] = await Promise.all([
      started(startDynamoDbLocal({ dataDir: join(dataDir, 'dynamodb') })),
      started(startS3({ dataDir: join(dataDir, 's3') })),
      started(startSqs({})),
      import('./serve.js'),
    ]);
    await serve({ port, dataDir, dynamodb, files, queues }, serving);
  } catch (error) {
    console.error(`Could not start: ${(error as Error).message}`);
    await stop(1);
  }
}
