import { issueToken } from '../lib/auth/issue.js';
import { permissionsOf } from '../lib/domain/permissions.js';
import type { DemoCredentials } from '../lib/local/demo.js';
import { grantAccess } from '../lib/store/identity.js';
import type { TraceRecorder } from './recorder.js';

/** The fixed request counts of the workload; deterministic so runs compare. */
export const COUNTS = { create: 200, get: 300, update: 200, list: 100, concurrent: 100, concurrency: 10 } as const;

interface Call {
  operation: string;
  method: string;
  path: string;
  token: string;
  expect: number;
  headers?: Record<string, string>;
  body?: unknown;
}

interface Reply {
  headers: Headers;
  json: { data?: { id?: string } } | undefined;
}

const ORGS = '/api/v1/organisations';

/** Sends real HTTP requests to the in-process server and times each one from the client side. */
export class Client {
  readonly latencies = new Map<string, number[]>();

  constructor(
    private readonly base: string,
    private readonly recorder: TraceRecorder,
  ) {}

  async send(call: Call): Promise<Reply> {
    // A mislabelled request would silently skew another operation's figures.
    const routed = this.recorder.operationOf(call.method, call.path);
    if (routed !== call.operation) throw new Error(`${call.method} ${call.path} routes to ${routed}, not ${call.operation}`);
    const phase = this.recorder.phase;
    const started = performance.now();
    const res = await fetch(this.base + call.path, {
      method: call.method,
      headers: {
        Authorization: `Bearer ${call.token}`,
        ...(call.body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...call.headers,
      },
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
    });
    const text = await res.text();
    const elapsed = performance.now() - started;
    if (res.status !== call.expect) {
      throw new Error(`${call.operation} (${call.method} ${call.path}) answered ${res.status}, expected ${call.expect}: ${text.slice(0, 500)}`);
    }
    if (phase !== undefined) {
      const label = call.operation + phase;
      const list = this.latencies.get(label) ?? [];
      list.push(elapsed);
      this.latencies.set(label, list);
    }
    const json = (res.headers.get('content-type') ?? '').includes('json') && text ? (JSON.parse(text) as Reply['json']) : undefined;
    return { headers: res.headers, json };
  }
}

/** A mutation-enabled token of the demo user on the bench project, with every project permission granted live. */
export async function projectToken(demo: DemoCredentials, projectId: string, name: string): Promise<string> {
  const now = new Date();
  await grantAccess(demo.user_id, { kind: 'project', id: projectId }, permissionsOf('project'), now);
  const { token } = await issueToken(
    demo.user_id,
    { token_type: 'project', project_id: projectId, name, abilities: permissionsOf('project'), read_only: false },
    now,
  );
  return token;
}

export function etagOf(reply: Reply, what: string): string {
  const etag = reply.headers.get('etag');
  if (!etag) throw new Error(`${what} answered without an ETag`);
  return etag;
}

/** Runs the fixed workload and returns the client-side latencies by label. */
export async function runWorkload(base: string, demo: DemoCredentials, recorder: TraceRecorder, log: (line: string) => void): Promise<Map<string, number[]>> {
  const client = new Client(base, recorder);
  const admin = demo.administration_token;
  const orgToken = demo.organisation_token;
  const demoPath = `${ORGS}/${demo.organisation_id}`;

  const create = async (key: string, name: string): Promise<string> => {
    const reply = await client.send({
      operation: 'createOrganisation',
      method: 'POST',
      path: ORGS,
      token: admin,
      expect: 201,
      headers: { 'Idempotency-Key': key },
      body: { name, timezone: 'Australia/Sydney' },
    });
    const id = reply.json?.data?.id;
    if (!id) throw new Error('createOrganisation answered without data.id');
    return id;
  };
  const get = (id: string, token = admin) => client.send({ operation: 'getOrganisation', method: 'GET', path: `${ORGS}/${id}`, token, expect: 200 });
  const update = async (etag: string, i: number): Promise<string> => {
    const reply = await client.send({
      operation: 'updateOrganisation',
      method: 'PATCH',
      path: demoPath,
      token: orgToken,
      expect: 200,
      headers: { 'Content-Type': 'application/merge-patch+json', 'If-Match': etag },
      body: { notes: `Benchmark edit ${i}` },
    });
    return etagOf(reply, 'updateOrganisation');
  };
  const list = () => client.send({ operation: 'listOrganisations', method: 'GET', path: ORGS, token: admin, expect: 200 });

  log('warm-up: 10 requests (not recorded)');
  recorder.phase = undefined;
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push(await create(`bench-warm-${i}`, `Bench Warm-up ${i}`));
  for (const id of ids) await get(id);
  let etag = etagOf(await get(demo.organisation_id, orgToken), 'getOrganisation');
  for (let i = 0; i < 2; i++) etag = await update(etag, -1 - i);
  await list();

  recorder.phase = '';
  log(`createOrganisation: ${COUNTS.create} sequential`);
  const created: string[] = [];
  for (let i = 0; i < COUNTS.create; i++) {
    const n = String(i).padStart(3, '0');
    created.push(await create(`bench-create-${n}`, `Bench Organisation ${n}`));
  }
  log(`getOrganisation: ${COUNTS.get} sequential`);
  for (let i = 0; i < COUNTS.get; i++) await get(created[i % created.length]!);
  log(`updateOrganisation: ${COUNTS.update} sequential, each with the previous ETag`);
  for (let i = 0; i < COUNTS.update; i++) etag = await update(etag, i);
  log(`listOrganisations: ${COUNTS.list} sequential`);
  for (let i = 0; i < COUNTS.list; i++) await list();

  recorder.phase = `@c${COUNTS.concurrency}`;
  log(`getOrganisation: ${COUNTS.concurrent} with ${COUNTS.concurrency} in flight`);
  let next = 0;
  const worker = async () => {
    while (next < COUNTS.concurrent) {
      const i = next++;
      await get(created[i % created.length]!);
    }
  };
  await Promise.all(Array.from({ length: COUNTS.concurrency }, worker));
  recorder.phase = undefined;
  return client.latencies;
}
