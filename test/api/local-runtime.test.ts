import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../lib/local/emulators.js';
import { killGroup, startRuntime, type Runtime } from '../support/runtime.js';

const dataDir = mkdtempSync(join(tmpdir(), 'aop-runtime-'));
const started: Runtime[] = [];
afterAll(() => {
  for (const runtime of started) killGroup(runtime.child.pid!);
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(port: number): Promise<Runtime> {
  const runtime = await startRuntime({ PORT: port, DATA_DIR: dataDir });
  started.push(runtime);
  return runtime;
}

async function stop(runtime: Runtime): Promise<number | null> {
  process.kill(runtime.child.pid!, 'SIGTERM');
  return (await runtime.exited).code;
}

describe('npm start', () => {
  it('fails with a one-line explanation when Java is missing', () => {
    const out = spawnSync('node', ['--import', 'tsx', 'lib/local/main.ts'], {
      encoding: 'utf8',
      env: { ...process.env, JAVA_HOME: '/nonexistent-java', DATA_DIR: dataDir },
      timeout: 30_000,
    });
    expect(out.status).toBe(1);
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
    expect(out.stderr).toMatch(/Java 17 or newer is required/);
  });

  it('refuses a port in use with a one-line explanation before it creates anything', async () => {
    const taken = createServer();
    await new Promise<void>((res) => taken.listen(0, () => res()));
    const port = (taken.address() as { port: number }).port;
    const unused = join(dataDir, 'never-created');
    const out = await new Promise<{ status: number | null; stderr: string }>((res) => {
      const child = spawn('node', ['--import', 'tsx', 'lib/local/main.ts'], { env: { ...process.env, PORT: String(port), DATA_DIR: unused } });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      child.once('exit', (status) => res({ status, stderr }));
    });
    taken.close();
    expect(out.status).toBe(1);
    expect(out.stderr.trim().split('\n')).toEqual([expect.stringContaining(`Port ${port} is in use`)]);
    expect(existsSync(unused)).toBe(false);
  });

  it('serves the API, keeps its data across a restart and stops its emulators on SIGTERM', async () => {
    const port = await freePort();
    const first = await start(port);
    expect(first.output()).toContain(`Assessment Operations API listening on http://localhost:${port}/api/v1`);
    expect(first.output()).toContain('Demo installation created');
    const demo = JSON.parse(readFileSync(join(dataDir, 'demo-credentials.json'), 'utf8'));
    expect(first.output()).not.toContain(demo.administration_token);
    const url = `http://127.0.0.1:${port}/api/v1/organisations/${demo.organisation_id}`;
    expect((await fetch(url, { headers: { Authorization: `Bearer ${demo.organisation_token}` } })).status).toBe(200);
    expect(first.output()).toContain('Loaded the sample catalogue 2025.1-sample (not the ISM)');
    const options = await fetch(`${url}/setup-options`, { headers: { Authorization: `Bearer ${demo.organisation_token}` } });
    expect(((await options.json()) as { data: { ism_releases: unknown[] } }).data.ism_releases).toEqual([
      expect.objectContaining({ version: '2025.1-sample', entries: 31, sample: true }),
    ]);
    expect(existsSync(join(dataDir, 'runtime.json'))).toBe(true);
    expect(await stop(first)).toBe(0);
    expect(existsSync(join(dataDir, 'runtime.json'))).toBe(false);

    const second = await start(port);
    expect(second.output()).toContain('Demo installation found');
    expect(second.output()).not.toContain('Loaded the sample catalogue');
    expect((await fetch(url, { headers: { Authorization: `Bearer ${demo.organisation_token}` } })).status).toBe(200);
    expect(await stop(second)).toBe(0);
  }, 180_000);
});
