import './env.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBucket, resetS3Client } from '../lib/files/s3.js';
import { ensureDemo, type DemoCredentials } from '../lib/local/demo.js';
import { javaProblem, startDynamoDbLocal, startS3, startSqs, type Emulator } from '../lib/local/emulators.js';
import { ensureQueues, startPollers, type Pollers } from '../lib/jobs/local.js';
import { formatBundles, measureBundles } from './bundles.js';
import { rawGetItem } from './baseline.js';
import { runControlsWorkload } from './controls.js';
import { runEvidenceWorkload } from './evidence.js';
import { benchDocuments, formatDocuments } from './documents.js';
import { benchEvidenceFiles, formatEvidenceFiles } from './evidence-files.js';
import { runTasksWorkload } from './tasks.js';
import { runRegistersWorkload } from './registers.js';
import { counterWrites, formatCounters } from './counters.js';
import { benchIdempotency, formatIdempotency } from './idempotency.js';
import { benchJsonBody, formatJsonBody } from './json-body.js';
import { runLibraryWorkload } from './library.js';
import { benchPopulation, formatPopulation } from './population.js';
import { benchCcmImport, formatCcmImport } from './ccm-import.js';
import { benchProviderSelection, formatProviderSelection } from './provider-selection.js';
import { localTokenSecret, useLocalServices } from '../lib/local/environment.js';
import { createLocalServer } from '../lib/local/server.js';
import { resetDdbClient } from '../lib/store/client.js';
import { resetSqsClient } from '../lib/queues/sqs.js';
import { ensureTable } from '../lib/store/schema.js';
import { TraceRecorder } from './recorder.js';
import { formatJson, formatTable, summarise } from './stats.js';
import { COUNTS, runWorkload } from './workload.js';

/** `npm run bench [-- --json]`: a fixed workload against the local runtime, in-process. */
const TABLE_NAME = 'assessment-operations-bench';
const log = (line: string) => console.error(`[bench] ${line}`);

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject).listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    });
  });
}

async function main(): Promise<number> {
  const json = process.argv.includes('--json');
  const problem = javaProblem();
  if (problem) throw new Error(problem);
  const dataDir = mkdtempSync(join(tmpdir(), 'aoa-bench-'));
  process.env.DATA_DIR = dataDir;
  const emulators: Emulator[] = [];
  let server: Server | undefined;
  let pollers: Pollers | undefined;
  try {
    log('bundling every function and timing its module init');
    const bundles = await measureBundles(log);
    log('starting DynamoDB Local (in memory) and s3rver');
    const dynamodb = await startDynamoDbLocal({ peak: true });
    emulators.push(dynamodb);
    const files = await startS3({ dataDir: join(dataDir, 's3') });
    emulators.push(files);
    const queues = await startSqs({});
    emulators.push(queues);
    useLocalServices({ dynamodb: dynamodb.endpoint, s3: files.endpoint, sqs: queues.endpoint, secret: localTokenSecret(dataDir), tableName: TABLE_NAME });
    await ensureTable();
    await ensureBucket();
    await ensureQueues('');
    pollers = await startPollers({ manual: true, loadWorkers: true });
    const demo = await ensureDemo(dataDir, new Date());
    const credentials = JSON.parse(readFileSync(demo.path, 'utf8')) as DemoCredentials;

    server = await createLocalServer();
    const recorder = new TraceRecorder();
    recorder.install(server);
    const port = await listen(server);
    const started = performance.now();
    let evidenceFiles: Awaited<ReturnType<typeof benchEvidenceFiles>> | undefined;
    let documents: Awaited<ReturnType<typeof benchDocuments>> | undefined;
    let selection: Awaited<ReturnType<typeof benchProviderSelection>> | undefined;
    const latencies = await runWorkload(`http://127.0.0.1:${port}`, credentials, recorder, log);
    await recorder.settled();
    log(`workload done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    log(`raw GetItem: ${COUNTS.get} sequential, strongly consistent`);
    const getItem = await rawGetItem(COUNTS.get);
    const population = await benchPopulation(`http://127.0.0.1:${port}`, credentials, pollers, log);
    if (population) {
      for (const [label, times] of await runControlsWorkload(`http://127.0.0.1:${port}`, credentials, population.project_id, recorder, log))
        latencies.set(label, times);
      for (const [label, times] of await runTasksWorkload(`http://127.0.0.1:${port}`, credentials, population.project_id, recorder, log))
        latencies.set(label, times);
      for (const [label, times] of await runRegistersWorkload(`http://127.0.0.1:${port}`, credentials, population.project_id, recorder, log))
        latencies.set(label, times);
      for (const [label, times] of await runLibraryWorkload(`http://127.0.0.1:${port}`, credentials, population.project_id, recorder, log))
        latencies.set(label, times);
      for (const [label, times] of await runEvidenceWorkload(`http://127.0.0.1:${port}`, credentials, population.project_id, recorder, log))
        latencies.set(label, times);
      await recorder.settled();
      evidenceFiles = await benchEvidenceFiles(`http://127.0.0.1:${port}`, credentials, population.project_id, pollers, log);
      documents = await benchDocuments(`http://127.0.0.1:${port}`, credentials, pollers, log);
      selection = await benchProviderSelection(`http://127.0.0.1:${port}`, credentials, pollers, population.project_id, log);
    }

    const ccmImport = await benchCcmImport(log);
    const jsonBody = benchJsonBody();

    log(`idempotent creates: ${COUNTS.create} with a receipt, ${COUNTS.create} with Powertools idempotency`);
    const idempotency = await benchIdempotency(credentials.user_id, COUNTS.create);

    const summary = summarise(latencies, recorder.traces);
    const getOrganisation = summary.operations.get('getOrganisation')!.p50_ms;
    const baseline = { get_item: getItem, get_organisation_p50_ms: getOrganisation, ratio: Math.round((getOrganisation / getItem.p50_ms) * 100) / 100 };
    const counters = counterWrites(summary);
    console.log(formatTable(summary));
    console.log(
      `\nP2, raw GetItem (small item, strongly consistent, sequential, ${getItem.samples} samples, same DynamoDB Local): p50 ${getItem.p50_ms} ms, p95 ${getItem.p95_ms} ms; getOrganisation p50 / GetItem p50 = ${baseline.ratio}`,
    );
    console.log(formatIdempotency(idempotency));
    console.log(formatCounters(counters));
    if (population) console.log(formatPopulation(population));
    if (ccmImport) console.log(formatCcmImport(ccmImport));
    console.log(formatJsonBody(jsonBody));
    if (selection) console.log(formatProviderSelection(selection));
    if (evidenceFiles) console.log(formatEvidenceFiles(evidenceFiles));
    if (documents) console.log(formatDocuments(documents));
    console.log(formatBundles(bundles));
    if (json) {
      const figures = {
        ...(JSON.parse(formatJson(summary)) as object),
        baseline,
        idempotency,
        budget_counters: counters,
        ...(population ? { population } : {}),
        ...(ccmImport ? { ccm_import: ccmImport } : {}),
        json_body: jsonBody,
        ...(selection ? { provider_selection: selection } : {}),
        ...(evidenceFiles ? { evidence_files: evidenceFiles } : {}),
        ...(documents ? { documents } : {}),
        bundles,
      };
      console.log(JSON.stringify(figures, null, 2));
    }
    if (summary.scans.length > 0) {
      console.error('[bench] FAILED: a Scan reached DynamoDB; every access pattern must be a key lookup or Query.');
      return 1;
    }
    return 0;
  } finally {
    await pollers?.stop();
    server?.closeAllConnections();
    server?.close();
    resetDdbClient();
    resetS3Client();
    resetSqsClient();
    // The JVM would outlive this process otherwise.
    await Promise.allSettled(emulators.reverse().map((e) => e.stop()));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// The emulators' exit hook kills DynamoDB Local only when the process exits through process.exit.
process.once('SIGINT', () => process.exit(130));
process.once('SIGTERM', () => process.exit(143));

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`[bench] FAILED: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
