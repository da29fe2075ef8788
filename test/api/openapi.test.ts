import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../lib/operations/registry.js';
import { startApi, type Api } from '../support/api.js';

let api: Api;
let doc: any;

beforeAll(async () => {
  api = await startApi();
  doc = (await api.request('GET', '/api/v1/openapi.json')).body;
});
afterAll(() => api.stop());

describe('GET /api/v1/openapi.json', () => {
  it('is an OpenAPI 3.1 document of version 1.14.0, served without a credential', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.14.0');
  });

  it('lists every implemented operation once, under its catalogue operationId', () => {
    const ids = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>)
      .flatMap((methods) => Object.values(methods).map((m) => m.operationId))
      .filter((id) => id !== 'getOpenApiDocument');
    expect(ids.sort()).toEqual(OPERATIONS.map((o) => o.id).sort());
  });

  it('declares permission, mode, credential types and side effects on every operation', () => {
    for (const op of OPERATIONS) {
      const entry = doc.paths[op.path][op.method.toLowerCase()];
      expect(entry['x-permission']).toEqual(op.permission);
      expect(entry['x-mode']).toBe(op.mode === 'read' ? 'read-only-compatible' : 'mutation-enabled');
      expect(entry['x-credential-types']).toEqual(op.credential);
      expect(entry['x-side-effects']).toEqual(op.sideEffects);
      expect(entry.responses['401'].content['application/problem+json']).toBeDefined();
    }
  });

  it('passes @redocly/cli lint with no errors or warnings', () => {
    const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
    const out = spawnSync('npx', ['redocly', 'lint', file, '--format=json'], { encoding: 'utf8', timeout: 60_000 });
    const report = JSON.parse(out.stdout) as { totals: { errors: number; warnings: number }; problems: unknown[] };
    expect(report.problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });
});
