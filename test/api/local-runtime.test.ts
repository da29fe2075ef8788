import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../lib/local/emulators.js';

const dataDir = mkdtempSync(join(tmpdir(), 'aop-runtime-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function start(port: number): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn('node', ['--import', 'tsx', 'lib/local/main.ts'], { env: { ...process.env, PORT: String(port), DATA_DIR: dataDir }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const deadline = Date.now() + 45_000;
  // The last line of the start-up banner: everything before it has been printed too.
  while (!output.includes('Issue more tokens with') && Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`npm start exited: ${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, output: () => output };
}

async function stop(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
  child.kill('SIGTERM');
  return exited;
}

describe('npm start', () => {
  it('fails with a one-line explanation when Java is missing', () => {
    const out = spawnSync('node', ['--import', 'tsx', 'lib/local/main.ts'], { encoding: 'utf8', env: { ...process.env, JAVA_HOME: '/nonexistent-java', DATA_DIR: dataDir }, timeout: 30_000 });
    expect(out.status).toBe(1);
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
    expect(out.stderr).toMatch(/Java 17 or newer is required/);
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
    expect(((await options.json()) as { data: { ism_releases: unknown[] } }).data.ism_releases).toEqual([expect.objectContaining({ version: '2025.1-sample', entries: 31, sample: true })]);
    expect(existsSync(join(dataDir, 'runtime.json'))).toBe(true);
    expect(await stop(first.child)).toBe(0);
    expect(existsSync(join(dataDir, 'runtime.json'))).toBe(false);

    const second = await start(port);
    expect(second.output()).toContain('Demo installation found');
    expect(second.output()).not.toContain('Loaded the sample catalogue');
    expect((await fetch(url, { headers: { Authorization: `Bearer ${demo.organisation_token}` } })).status).toBe(200);
    expect(await stop(second.child)).toBe(0);
  }, 120_000);
});
