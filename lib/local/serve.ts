import type { Server } from 'node:http';
import { join } from 'node:path';
import { API_PREFIX } from '../domain/api-paths.js';
import { OPENAPI_PATH } from '../operations/kernel/router.js';
import { runMigrations } from '../migrations/index.js';
import { ensureTable } from '../store/schema.js';
import { ensureBucket } from '../files/s3.js';
import { ensureQueues, startPollers } from '../jobs/local.js';
import { SWEEP_INTERVAL_SECONDS } from '../queues/recovery.js';
import { sweep } from '../jobs/sweep.js';
import { ensureCatalogue, ensureDemo } from './demo.js';
import type { Emulator } from './emulators.js';
import { localTokenSecret, useLocalServices, writeRuntimeInfo } from './environment.js';
import { createLocalServer } from './server.js';

/** What a stop has to end, as far as the start has got. */
export interface Serving {
  server?: Server;
  beforeStop?: () => Promise<void>;
}

/**
 * The runtime on started emulators: the table, bucket and queues, the pollers and the sweep, the
 * demo installation, the sample catalogue and the data migrations, then the API on its port and
 * the banner. Fills `serving` as it goes, for a stop that comes before the banner.
 */
export async function serve(
  options: { port: number; dataDir: string; dynamodb: Emulator; files: Emulator; queues: Emulator },
  serving: Serving,
): Promise<void> {
  const { port, dataDir, dynamodb, files, queues } = options;
  useLocalServices({ dynamodb: dynamodb.endpoint, s3: files.endpoint, sqs: queues.endpoint, secret: localTokenSecret(dataDir) });

  await ensureTable();
  await ensureBucket();
  await ensureQueues('');
  const pollers = await startPollers({ streamPosition: join(dataDir, 'stream-position.json') });
  // The AWS stack's schedule: stalled work is queued again.
  const sweepNow = () => void sweep(new Date()).catch((error: unknown) => console.error(`sweep: ${(error as Error).message}`));
  const sweeping = setInterval(sweepNow, SWEEP_INTERVAL_SECONDS * 1000);
  sweepNow();
  serving.beforeStop = async () => {
    clearInterval(sweeping);
    await pollers.stop();
  };
  const demo = await ensureDemo(dataDir, new Date());
  const catalogue = await ensureCatalogue(new Date());
  for (const step of await runMigrations(new Date())) if (step.status === 'applied') console.log(`Data migration ${step.name}: ${step.result}.`);

  const listening = await createLocalServer();
  serving.server = listening;
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
}
