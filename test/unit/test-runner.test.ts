import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

let bin: string | undefined;
afterEach(() => {
  if (bin) rmSync(bin, { recursive: true, force: true });
  bin = undefined;
});

describe('npm test', () => {
  it("stops with a one-line explanation when poppler's tools are not on the PATH", () => {
    bin = mkdtempSync(join(tmpdir(), 'aop-no-poppler-'));
    symlinkSync(process.execPath, join(bin, 'node'));
    const out = spawnSync('node', ['--import', 'tsx', 'test/run.ts'], { encoding: 'utf8', env: { ...process.env, PATH: bin }, timeout: 30_000 });
    expect(out.status).toBe(1);
    expect(out.stdout).toBe('');
    expect(out.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^npm test needs poppler's .*pdftoppm.*apt-get install poppler-utils/)]);
  });
});
