import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { permissionsOf } from '../lib/domain/permissions.js';
import { freePort } from '../lib/local/emulators.js';
import { form, png } from '../test/support/files.js';
import { killGroup, type Runtime, startRuntime } from '../test/support/runtime.js';
import { ISM_RELEASE_DIR } from './population.js';

/**
 * The fault run of issue 26, as an operator would try it: the real `npm start` on a temporary
 * DATA_DIR, jobs asked for through the API, the whole runtime killed with SIGKILL (a) as soon as
 * the request is acknowledged and (b) while the job is running, then started again on the same
 * DATA_DIR and the job polled to its end. Prints the seconds from the restart's "listening" line
 * to the end state, checks the end happened once, and the time from the acknowledging answer to
 * the job's start with the runtime up.
 */

const POLL_MS = 250;
// A client polling four times a second spends 240 reads a minute: the read budgets are raised so that the figures time recovery, not a 429's Retry-After.
for (const budget of ['API_READ_RATE_LIMIT_PER_MINUTE', 'API_ACTOR_READ_RATE_LIMIT_PER_MINUTE', 'API_ORGANISATION_READ_RATE_LIMIT_PER_MINUTE'])
  process.env[budget] = '100000';
const END_WITHIN_MS = 10 * 60_000;

interface Api {
  base: string;
  org: string;
  token: string;
}

interface State {
  status: string;
  detail: string;
}

interface Job {
  kind: string;
  /** Asks for the job; resolves when the request is acknowledged. */
  start: () => Promise<void>;
  /** The job's state as a client reads it. */
  state: () => Promise<State>;
  /** Population reads running from its request on: its first progress is its start. */
  started: (state: State) => boolean;
  ended: (state: State) => boolean;
  /** Checks that the end is the work done once; returns what it checked. */
  check: () => Promise<string>;
}

async function request(api: Api, method: string, path: string, init: { body?: unknown; form?: FormData; headers?: Record<string, string> } = {}) {
  const send = () =>
    fetch(api.base + path, {
      method,
      headers: { Authorization: `Bearer ${api.token}`, ...(init.form ? {} : { 'Content-Type': 'application/json' }), ...init.headers },
      body: init.form ?? (init.body === undefined ? undefined : JSON.stringify(init.body)),
    });
  // A kept-alive socket the server closed as idle (or a killed runtime's) fails before the server reads the request: send it once more.
  const res = await send().catch((error: { cause?: { code?: string } }) => {
    if (!['UND_ERR_SOCKET', 'ECONNRESET'].includes(error.cause?.code ?? '')) throw error;
    return send();
  });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
  return { etag: res.headers.get('etag') ?? '', data: (text ? JSON.parse(text).data : {}) as Record<string, unknown> };
}

let runtime: Runtime | undefined;
const dataDir = mkdtempSync(join(tmpdir(), 'aop-recovery-'));

async function up(port: number): Promise<number> {
  runtime = await startRuntime({ PORT: port, DATA_DIR: dataDir });
  return Date.now();
}

async function crash(): Promise<void> {
  const dying = runtime!;
  killGroup(dying.child.pid!);
  await dying.exited;
}

function admin(...args: string[]): string {
  const out = spawnSync('npm', ['run', '--silent', 'admin', '--', ...args], { encoding: 'utf8', env: { ...process.env, DATA_DIR: dataDir } });
  if (out.status !== 0) throw new Error(`admin ${args.join(' ')}: ${out.stderr}`);
  return out.stdout;
}

async function until(job: Job, done: (state: State) => boolean, from: number): Promise<{ ms: number; status: string; detail: string }> {
  for (;;) {
    const { status, detail } = await job.state();
    if (done({ status, detail })) return { ms: Date.now() - from, status, detail };
    if (Date.now() - from > END_WITHIN_MS) return { ms: Number.NaN, status: `${status} (still, after ${END_WITHIN_MS / 60_000} min)`, detail };
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

interface Project {
  id: string;
  setup: string;
  etag: string;
}

async function project(api: Api, releaseId: string, label: string): Promise<Project> {
  const system = await request(api, 'POST', `${api.org}/systems`, {
    headers: { 'Idempotency-Key': `recovery-system-${label}` },
    body: { name: `Recovery ${label}`, short_code: `REC${label.toUpperCase()}`.slice(0, 12) },
  });
  const projects = `${api.org}/systems/${String(system.data.id)}/projects`;
  const created = await request(api, 'POST', projects, {
    headers: { 'Idempotency-Key': `recovery-project-${label}` },
    body: { name: `Recovery ${label}`, ism_release_id: releaseId, classification: 'P' },
  });
  return { id: String(created.data.id), setup: `${projects}/${String(created.data.id)}`, etag: created.etag };
}

/** Population of a PROTECTED project of its own; done once means every control counted once. */
function population(api: Api, p: Project): Job {
  const read = async () => (await request(api, 'GET', `${p.setup}/population`)).data;
  return {
    kind: 'population',
    start: async () => void (await request(api, 'POST', `${p.setup}/population`, { headers: { 'If-Match': p.etag }, body: {} })),
    state: async () => {
      const run = await read();
      return { status: String(run.status), detail: JSON.stringify(run.progress ?? {}) };
    },
    started: ({ detail }) => Number(JSON.parse(detail).created ?? 0) > 0,
    ended: ({ status }) => status === 'completed' || status === 'failed',
    check: async () => {
      const run = await read();
      const health = (await request(api, 'GET', `${p.setup}/health`)).data;
      return `progress ${JSON.stringify(run.progress)}; health ${JSON.stringify(health).slice(0, 200)}`;
    },
  };
}

/** An SSP generated on a populated project: done once means one output, the latest generation's. */
function generation(api: Api, p: Project, projectToken: string, documents: Map<string, string>): Job {
  const as = { ...api, token: projectToken };
  const documentOf = () => documents.get(p.id) ?? '';
  const read = async () => (await request(as, 'GET', `/api/v1/projects/${p.id}/documents/${documentOf()}`)).data;
  return {
    kind: 'document generation',
    // The first generation creates the output row; later ones generate that row again.
    start: async () => {
      if (documents.has(p.id)) return void (await request(as, 'POST', `/api/v1/projects/${p.id}/documents/${documentOf()}/generation`, { body: {} }));
      const answer = await request(as, 'POST', `/api/v1/projects/${p.id}/documents/generation`, { body: { document_key: 'ssp' } });
      documents.set(p.id, String(answer.data.document_id));
    },
    state: async () => {
      const g = (await request(as, 'GET', `/api/v1/projects/${p.id}/documents/${documentOf()}/generation`)).data;
      const latest = (g.generation ?? g) as { status?: string; error_code?: string };
      return { status: String(latest.status), detail: String(latest.error_code ?? '') };
    },
    started: ({ status }) => status !== 'queued',
    ended: ({ status }) => status === 'completed' || status === 'failed',
    check: async () => {
      const row = await read();
      return `document ${String(row.status)}, output ${JSON.stringify(row.output ?? null).slice(0, 120)}`;
    },
  };
}

/** Applicability recalculated after a change of in-scope technologies; health shows it pending until it has run. */
function recalculation(api: Api, p: Project, wireless: string): Job {
  const health = async () => (await request(api, 'GET', `${p.setup}/health`)).data;
  return {
    kind: 'recalculation',
    start: async () => {
      const { etag } = await request(api, 'GET', `${p.setup}/scope`);
      await request(api, 'PATCH', `${p.setup}/scope`, {
        headers: { 'If-Match': etag, 'Content-Type': 'application/merge-patch+json' },
        body: { data: { wireless_networks: wireless } },
      });
    },
    state: async () => {
      const h = await health();
      return { status: String((h.recalculation as { status: string }).status), detail: JSON.stringify(h.warnings ?? []) };
    },
    // A client cannot tell a queued recalculation from a running one: pending covers both.
    started: () => true,
    ended: ({ status }) => status !== 'pending',
    check: async () => JSON.stringify(await health()).slice(0, 200),
  };
}

/** The organisation's logo: an upload scanned out of quarantine (the scan job). */
function logoScan(api: Api, shade: number): Job {
  const read = async () => (await request(api, 'GET', `${api.org}/logo`)).data;
  return {
    kind: 'scan (logo upload)',
    start: async () => {
      const { etag } = await request(api, 'GET', `${api.org}/logo`);
      const headers = { 'If-Match': etag, 'Idempotency-Key': `recovery-logo-${shade}` };
      await request(api, 'POST', `${api.org}/logo`, { form: form(png(640, 480, shade), 'logo.png'), headers });
    },
    state: async () => {
      const logo = await read();
      return { status: String(logo.status), detail: String(logo.error_code ?? '') };
    },
    started: ({ status }) => status !== 'quarantine',
    ended: ({ status }) => status === 'ready' || status === 'error',
    check: async () => JSON.stringify(await read()).slice(0, 160),
  };
}

interface Row {
  kind: string;
  point: string;
  ms: number;
  end: string;
  checked: string;
}

const log = (line: string) => console.log(`${new Date().toISOString().slice(11, 19)} ${line}`);

async function main(): Promise<void> {
  const port = await freePort();
  await up(port);
  const demo = JSON.parse(readFileSync(join(dataDir, 'demo-credentials.json'), 'utf8')) as {
    organisation_id: string;
    organisation_token: string;
    user_id: string;
  };
  const api: Api = { base: `http://localhost:${port}`, org: `/api/v1/organisations/${demo.organisation_id}`, token: demo.organisation_token };
  if (existsSync(ISM_RELEASE_DIR)) admin('catalogue', 'import', '--path', ISM_RELEASE_DIR);
  const releases = (await request(api, 'GET', `${api.org}/setup-options`)).data.ism_releases as { id: string; sample: boolean; version: string }[];
  const release = releases.find((r) => !r.sample) ?? releases[0]!;
  log(`release ${release.version}${release.sample ? ' (sample catalogue)' : ''}; DATA_DIR ${dataDir}`);

  // One populated project carries the jobs that need one: its generations and recalculations.
  const populated = await project(api, release.id, 'warm');
  const abilities = permissionsOf('project').join(',');
  admin('access', 'grant', '--user', demo.user_id, '--project', populated.id, '--permissions', abilities);
  const issued = admin(
    'token',
    'issue',
    '--user',
    demo.user_id,
    '--type',
    'project',
    '--project',
    populated.id,
    '--abilities',
    abilities,
    '--read-only',
    'false',
  );
  const projectToken = (JSON.parse(issued) as { token: string }).token;
  let round = 0;
  const documents = new Map<string, string>();
  const jobsOf = async (label: string): Promise<Job[]> => {
    round += 1;
    return [
      population(api, label === 'warm' ? populated : await project(api, release.id, label)),
      logoScan(api, 40 * round),
      generation(api, populated, projectToken, documents),
      recalculation(api, populated, round % 2 ? 'yes' : 'no'),
    ];
  };

  const rows: Row[] = [];
  const latency: { kind: string; ms: number }[] = [];
  // The stream/outbox latency with the runtime up: acknowledging answer to the first state that is not the queued one.
  for (const job of await jobsOf('warm')) {
    await job.start();
    const acked = Date.now();
    latency.push({ kind: job.kind, ms: (await until(job, job.started, acked)).ms });
    const end = await until(job, job.ended, acked);
    log(`${job.kind} with the runtime up: ${end.status} in ${(end.ms / 1000).toFixed(1)} s`);
  }

  const faultRun = async (point: string, beforeKill: (jobs: Job[]) => Promise<unknown>) => {
    const jobs = await jobsOf(point === 'mid-way' ? 'midway' : 'acked');
    for (const job of jobs) await job.start();
    await beforeKill(jobs);
    const states = await Promise.all(jobs.map(async (job) => `${job.kind} ${(await job.state()).status}`));
    log(`SIGKILL ${point}: ${states.join(', ')}`);
    await crash();
    const listening = await up(port);
    log('restarted');
    // Polled side by side, so that each job's time is its own and not the slowest one's before it.
    const ends = await Promise.all(jobs.map((job) => until(job, job.ended, listening)));
    for (const [i, job] of jobs.entries()) {
      const end = ends[i]!;
      log(`${job.kind}: ${end.status} ${(end.ms / 1000).toFixed(1)} s after the restart`);
      rows.push({ kind: job.kind, point, ms: end.ms, end: end.status, checked: await job.check() });
    }
  };
  await faultRun('after acknowledgement', async () => {});
  // Killed once a client reads each job started (population and generation report running).
  await faultRun('mid-way', (jobs) => Promise.all(jobs.map((job) => until(job, job.started, Date.now()))));

  console.log('\nRestart ("listening") to the end state a client polls:');
  for (const r of rows) console.log(`  ${r.kind.padEnd(20)} ${r.point.padEnd(22)} ${(r.ms / 1000).toFixed(1).padStart(7)} s  ${r.end}  ${r.checked}`);
  console.log('\nAcknowledging answer to the job read as started (runtime up):');
  for (const l of latency) console.log(`  ${l.kind.padEnd(20)} ${(l.ms / 1000).toFixed(2)} s`);
}

try {
  await main();
} catch (error) {
  console.error(`Runtime output:\n${runtime?.output().split('\n').slice(-30).join('\n')}`);
  throw error;
} finally {
  if (runtime) killGroup(runtime.child.pid!);
  rmSync(dataDir, { recursive: true, force: true });
}
