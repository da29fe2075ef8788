import http, { type RequestOptions } from 'node:http';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, expect, inject } from 'vitest';

/**
 * With WORK_METER_DIR set (vitest.config.ts), each emulator test file leaves there what it cost, in
 * figures a loaded machine does not change: the requests it sent the API, the commands it sent each
 * emulator (by operation), and the CPU its worker spent in tests. DynamoDB Local's CPU is in it too,
 * but it is the one JVM's: a file's own only when the file runs alone.
 */
const counts: Record<string, number> = {};
const count = (name: string) => {
  counts[name] = (counts[name] ?? 0) + 1;
};

const services = new Map<string, string>((['dynamodb', 's3', 'sqs'] as const).map((name) => [new URL(inject(`${name}Endpoint`)).port, name]));

// The SDK's HTTP handler looks up http.request when it first sends.
const request = http.request;
http.request = ((...args: Parameters<typeof http.request>) => {
  const options = (typeof args[0] === 'object' && !(args[0] instanceof URL) ? args[0] : {}) as RequestOptions;
  const service = services.get(String(options.port)) ?? 'other';
  const target = (options.headers as Record<string, string> | undefined)?.['x-amz-target'];
  count(service);
  count(`${service}:${target ? target.split('.').pop() : options.method}`);
  return request(...args);
}) as typeof http.request;
syncBuiltinESMExports();

const apiFetch = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (url.hostname === '127.0.0.1') {
    count('api');
    if (init?.method === 'POST' && url.pathname.endsWith('/population')) count('api:population starts');
  }
  return apiFetch(input, init);
};

/** DynamoDB Local's process: the java process listening on the endpoint's port. */
function dynamodbLocal(): string | undefined {
  const port = [...services].find(([, name]) => name === 'dynamodb')?.[0];
  return readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .find((pid) => {
      try {
        const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return command[0]!.endsWith('java') && command[command.indexOf('-port') + 1] === port;
      } catch {
        return false;
      }
    });
}

/** User and system CPU of a process in ms (clock ticks of 10 ms). */
const cpuOf = (pid: string | undefined) => {
  if (!pid) return 0;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

let started: { worker: NodeJS.CpuUsage; at: number; jvm: string | undefined; jvmCpu: number };
beforeAll(() => {
  const jvm = dynamodbLocal();
  started = { worker: process.cpuUsage(), at: performance.now(), jvm, jvmCpu: cpuOf(jvm) };
});
afterAll(() => {
  const worker = process.cpuUsage(started.worker);
  const file = expect.getState().testPath ?? 'unknown';
  const dir = process.env.WORK_METER_DIR!;
  mkdirSync(dir, { recursive: true });
  const figures = {
    file,
    wallMs: Math.round(performance.now() - started.at),
    workerCpuMs: Math.round((worker.user + worker.system) / 1000),
    dynamodbLocalCpuMs: cpuOf(started.jvm) - started.jvmCpu,
    counts,
  };
  writeFileSync(join(dir, `${basename(file)}.json`), JSON.stringify(figures));
  // The next file of a worker that shares its modules counts in its own figures, not through these.
  http.request = request;
  syncBuiltinESMExports();
  globalThis.fetch = apiFetch;
});
