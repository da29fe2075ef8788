import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { buildFunction, codeFiles } from '../infra/bundling.js';

const run = promisify(execFile);
const FUNCTIONS = fileURLToPath(new URL('../functions/', import.meta.url));
const KINDS = ['http', 'workers'] as const;
const INIT_RUNS = 5;
/**
 * The limits of every HTTP function (issue 23): cold start is what users feel, so the median CPU
 * time of module init; and the minified size, with the AWS SDK bundled so that AWS runs the SDK
 * the tests ran.
 */
export const TARGETS = { bytes: 700 * 1024, init_cpu_ms: 100 } as const;

export interface BundleFigures {
  function: string;
  bytes: number;
  init_ms: number;
  /** CPU time of the same imports: less at the mercy of other processes on a shared machine than wall time. */
  init_cpu_ms: number;
}

/**
 * Times the import of a bundle in a fresh process: what a cold start spends in module init
 * before the first event, without Node's own start-up. The streaming global is Lambda's, which
 * the downloads function looks for when it loads. Source maps are off, as in the functions
 * (infra/app-function.ts): a function reads a map only when it logs an unexpected error.
 */
const INIT_PROBE = `
globalThis.awslambda = { streamifyResponse: (handler) => handler, HttpResponseStream: { from: (stream) => stream } };
const cpu = process.cpuUsage();
const started = performance.now();
await import(process.env.BUNDLE_URL);
const used = process.cpuUsage(cpu);
process.stdout.write(JSON.stringify([performance.now() - started, (used.user + used.system) / 1000]));
`;

const PROBE_ENV = {
  AWS_REGION: 'ap-southeast-2',
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  TABLE_NAME: 'assessment-operations-bench',
  BUCKET_NAME: 'assessment-operations-bench',
  LOG_LEVEL: 'ERROR',
};

async function entries(): Promise<string[]> {
  const names = await Promise.all(
    KINDS.map(async (kind) => (await readdir(join(FUNCTIONS, kind))).filter((f) => f.endsWith('.ts')).map((f) => `${kind}/${f.slice(0, -3)}`)),
  );
  return names.flat().sort();
}

async function initMs(bundle: string): Promise<[wall: number, cpu: number]> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', INIT_PROBE], {
    env: { PATH: process.env.PATH ?? '', ...PROBE_ENV, BUNDLE_URL: pathToFileURL(bundle).href },
    timeout: 30_000,
  });
  return JSON.parse(stdout) as [number, number];
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Builds every function as the CDK app does and measures each bundle's size and module init. */
export async function measureBundles(log: (line: string) => void): Promise<BundleFigures[]> {
  const dir = await mkdtemp(join(tmpdir(), 'aoa-bench-bundles-'));
  try {
    const figures: BundleFigures[] = [];
    for (const name of await entries()) {
      const outdir = join(dir, name);
      await buildFunction(join(FUNCTIONS, `${name}.ts`), outdir);
      const times: [number, number][] = [];
      // One at a time: parallel processes would time each other's CPU contention.
      for (let i = 0; i < INIT_RUNS; i++) times.push(await initMs(join(outdir, 'index.mjs')));
      const sizes = await Promise.all((await codeFiles(outdir)).map(async (file) => (await stat(file)).size));
      figures.push({
        function: name,
        // Every chunk counts, loaded at init or not: the limit is on the code the function deploys.
        bytes: sizes.reduce((sum, size) => sum + size, 0),
        init_ms: median(times.map(([wall]) => wall)),
        init_cpu_ms: median(times.map(([, cpu]) => cpu)),
      });
    }
    log(`bundled and timed ${figures.length} functions`);
    return figures;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Kilobytes rounded up, in the table as in the flags: a bundle a byte over the limit never reads as at it. */
const kb = (bytes: number) => Math.ceil(bytes / 1024);

/** The limits an HTTP function exceeds, each as `figure > limit`; workers have none. */
export function limitsExceeded(f: BundleFigures): string[] {
  if (!f.function.startsWith('http/')) return [];
  return [
    ...(f.bytes > TARGETS.bytes ? [`${kb(f.bytes)} KB > ${TARGETS.bytes / 1024} KB`] : []),
    ...(f.init_cpu_ms > TARGETS.init_cpu_ms ? [`${f.init_cpu_ms.toFixed(1)} ms CPU > ${TARGETS.init_cpu_ms} ms`] : []),
  ];
}

export function formatBundles(figures: readonly BundleFigures[]): string {
  const over = figures.filter((f) => limitsExceeded(f).length > 0);
  return [
    '',
    `Function bundles (minified, as the CDK app builds them; init = median module import of ${INIT_RUNS} fresh node processes, wall and CPU; * = an HTTP function over ${TARGETS.bytes / 1024} KB or ${TARGETS.init_cpu_ms} ms CPU):`,
    ...figures.map(
      (f) =>
        `  ${f.function.padEnd(22)} ${String(kb(f.bytes)).padStart(6)} KB ${f.init_ms.toFixed(1).padStart(8)} ms ${f.init_cpu_ms.toFixed(1).padStart(8)} ms CPU${over.includes(f) ? ' *' : ''}`,
    ),
    ...(over.length > 0 ? [`  Over the limits: ${over.map((f) => `${f.function} (${limitsExceeded(f).join(', ')})`).join('; ')}.`] : []),
  ].join('\n');
}
