import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_PREFIX } from '../../lib/console/http.js';
import { OPERATIONS } from '../../lib/operations/registry.js';
import { startApi, type Api } from '../support/api.js';
import { scratchDir } from '../support/scratch.js';

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

  it('names as its contact the API reference the console serves', () => {
    expect(doc.info.contact).toEqual({ name: 'Assessment Operations API reference', url: `${CONSOLE_PREFIX}/reference` });
  });

  it('describes every operation of the registry beside its summary', () => {
    const undescribed = OPERATIONS.filter((op) => !op.description?.trim() || !doc.paths[op.path][op.method.toLowerCase()].description?.trim());
    expect(undescribed.map((op) => op.id)).toEqual([]);
  });

  it('says on every file operation that its answers are sandboxed and not sniffed, and on those that may answer a PDF that it comes as an attachment', () => {
    for (const op of OPERATIONS.filter((o) => o.produces)) {
      const description: string = doc.paths[op.path][op.method.toLowerCase()].description;
      expect(description).toContain('Content-Security-Policy: sandbox');
      expect(description).toContain('X-Content-Type-Options: nosniff');
      expect(description.includes('A PDF is answered as an attachment')).toBe(op.produces!.includes('application/pdf'));
    }
  });

  it('passes @redocly/cli lint with no errors or warnings', () => {
    const dir = scratchDir('openapi-');
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
    const out = spawnSync('npx', ['redocly', 'lint', file, '--format=json'], { encoding: 'utf8', timeout: 60_000 });
    const report = JSON.parse(out.stdout) as { totals: { errors: number; warnings: number }; problems: unknown[] };
    expect(report.problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });
});
