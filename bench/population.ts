import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { readReleaseDirectory } from '../lib/catalogue/files.js';
import { importRelease } from '../lib/catalogue/store.js';
import type { Pollers } from '../lib/jobs/local.js';
import type { DemoCredentials } from '../lib/local/demo.js';
import { traceDdb, type DdbCall } from '../lib/store/client.js';

/** The official release, read from the shared data beside the project (never copied into it). */
export const ISM_RELEASE_DIR = resolve(import.meta.dirname, '../../shared/data/ism-2025.12.9');

export interface PopulationFigures {
  project_id: string;
  controls: number;
  wall_ms: number;
  ddb_requests: number;
  requests_by_command: Record<string, number>;
  wcu: number;
  rcu: number;
}

/** One API request of a bench arrangement, which must answer `expect`. */
export async function call(
  base: string,
  token: string,
  method: string,
  path: string,
  init: { body?: unknown; headers?: Record<string, string>; expect: number },
) {
  const res = await fetch(base + path, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  if (res.status !== init.expect) throw new Error(`${method} ${path} answered ${res.status}, expected ${init.expect}: ${text.slice(0, 300)}`);
  return { etag: res.headers.get('etag') ?? '', json: text ? (JSON.parse(text) as { data: Record<string, unknown> }) : undefined };
}

/**
 * Populates a PROTECTED project from the official release through the API and the population
 * worker (run by the local poller), timing the run from the POST to completion and tracing the
 * worker's DynamoDB requests and capacity.
 */
export async function benchPopulation(
  base: string,
  demo: DemoCredentials,
  pollers: Pollers,
  log: (line: string) => void,
): Promise<PopulationFigures | undefined> {
  if (!existsSync(ISM_RELEASE_DIR)) {
    log(`population: skipped, no ISM release at ${ISM_RELEASE_DIR}`);
    return undefined;
  }
  const release = await importRelease(readReleaseDirectory(ISM_RELEASE_DIR), { sample: false }, new Date());
  const token = demo.organisation_token;
  const org = `/api/v1/organisations/${demo.organisation_id}`;
  const system = await call(base, token, 'POST', `${org}/systems`, {
    expect: 201,
    headers: { 'Idempotency-Key': 'bench-system' },
    body: { name: 'Bench system', short_code: 'BENCH' },
  });
  const projects = `${org}/systems/${String(system.json!.data.id)}/projects`;
  const project = await call(base, token, 'POST', projects, {
    expect: 201,
    headers: { 'Idempotency-Key': 'bench-project' },
    body: { name: 'Bench PROTECTED project', ism_release_id: release.id, classification: 'P' },
  });
  const url = `${projects}/${String(project.json!.data.id)}`;
  log('population: PROTECTED project from ISM 2025.12.9');
  const started = performance.now();
  await call(base, token, 'POST', `${url}/population`, { expect: 202, headers: { 'If-Match': project.etag }, body: {} });
  const { calls } = await traceDdb(() => pollers.drain());
  const wall = performance.now() - started;
  const done = await call(base, token, 'GET', `${url}/population`, { expect: 200 });
  if (done.json!.data.status !== 'completed') throw new Error(`population ended ${String(done.json!.data.status)}`);
  const byCommand: Record<string, number> = {};
  for (const c of calls) byCommand[c.command] = (byCommand[c.command] ?? 0) + 1;
  const sum = (f: (c: DdbCall) => number) => Math.round(calls.reduce((a, c) => a + f(c), 0) * 10) / 10;
  return {
    project_id: String(project.json!.data.id),
    controls: Number((done.json!.data.progress as { planned: number }).planned),
    wall_ms: Math.round(wall),
    ddb_requests: calls.length,
    requests_by_command: byCommand,
    wcu: sum((c) => c.wcu),
    rcu: sum((c) => c.rcu),
  };
}

export function formatPopulation(f: PopulationFigures): string {
  const mix = Object.entries(f.requests_by_command)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return [
    '',
    'Population of a PROTECTED project (ISM 2025.12.9), POST to completed, through the population worker:',
    `  controls ${f.controls}, wall ${(f.wall_ms / 1000).toFixed(2)} s, DynamoDB requests ${f.ddb_requests} (${mix}), WCU ${f.wcu}, RCU ${f.rcu}`,
  ].join('\n');
}
