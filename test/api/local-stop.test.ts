import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, portAnswers } from '../../lib/local/emulators.js';
import type { RuntimeInfo } from '../../lib/local/environment.js';
import { groupMembers, killGroup, startRuntime, type Runtime } from '../support/runtime.js';

const STOP_WITHIN_MS = 5_000;
const STOPPED_LINE = 'Stopped the API, DynamoDB Local, the S3 emulator and the SQS emulator.';

let running: Runtime | undefined;
let dataDir: string | undefined;
afterEach(() => {
  if (running?.child.pid) killGroup(running.child.pid);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  running = undefined;
  dataDir = undefined;
});

async function started(): Promise<{ runtime: Runtime; ports: number[] }> {
  dataDir = mkdtempSync(join(tmpdir(), 'aop-stop-'));
  running = await startRuntime({ PORT: await freePort(), DATA_DIR: dataDir });
  const info = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')) as RuntimeInfo;
  const ports = [info.port, ...[info.dynamodb, info.s3, info.sqs].map((endpoint) => Number(new URL(endpoint).port))];
  for (const port of ports) expect(await portAnswers(port)).toBe(true);
  expect(groupMembers(running.child.pid!).map((p) => p.command)).toContain('java');
  return { runtime: running, ports };
}

async function expectCleanStop(runtime: Runtime, ports: number[], signalledAt: number): Promise<void> {
  const timeout = new Promise<'still running'>((res) => setTimeout(() => res('still running'), STOP_WITHIN_MS).unref());
  const exit = await Promise.race([runtime.exited, timeout]);
  expect(exit).not.toBe('still running');
  expect(exit).toMatchObject({ code: 0, signal: null });
  expect((exit as { at: number }).at - signalledAt).toBeLessThan(STOP_WITHIN_MS);
  // The group's last members (the JVM) may be reaped a moment after npm itself exits.
  const left = Math.max(100, STOP_WITHIN_MS - (Date.now() - signalledAt));
  await expect.poll(() => groupMembers(runtime.child.pid!), { timeout: left }).toEqual([]);
  for (const port of ports) expect(await portAnswers(port)).toBe(false);
}

/**
 * One runtime stopped by Ctrl-C, which both tests of Ctrl-C look at, each at one thing: a start
 * takes a JVM, the emulators and the demo data's seeding.
 */
let ctrlC: Promise<{ runtime: Runtime; ports: number[]; at: number; before: string }> | undefined;
const stoppedByCtrlC = () =>
  (ctrlC ??= started().then(({ runtime, ports }) => {
    const before = runtime.output();
    const at = Date.now();
    process.kill(-runtime.child.pid!, 'SIGINT');
    return { runtime, ports, at, before };
  }));

describe('npm start stops cleanly', () => {
  it('stops every process and port within 5 s when its process group gets SIGINT (Ctrl-C)', async () => {
    const { runtime, ports, at } = await stoppedByCtrlC();
    await expectCleanStop(runtime, ports, at);
  }, 150_000);

  it('prints one line saying the API and every emulator have stopped on Ctrl-C', async () => {
    const { runtime, before } = await stoppedByCtrlC();
    await runtime.exited;
    expect(runtime.output().slice(before.length).trim()).toBe(STOPPED_LINE);
  }, 150_000);

  it('stops every process and port within 5 s when only the npm process gets SIGTERM', async () => {
    const { runtime, ports } = await started();
    const at = Date.now();
    process.kill(runtime.child.pid!, 'SIGTERM');
    await expectCleanStop(runtime, ports, at);
  }, 150_000);
});
