import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The layers of DESIGN.md, lowest first: domain <- store <- operations <- http <- functions. A
 * module may import its own layer or a lower one, never a higher one. The services beside the
 * store (credentials, catalogue import, files, jobs, renderers, repository providers) sit between the store and the
 * operations; the local runtime and the operator CLI are entry points like the functions.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['lib/errors.ts', 'lib/command-recording.ts', 'lib/lambda-credentials.ts', 'lib/stages.ts'],
  // Settings are validated against domain rules (the workflow), and the domain may log.
  ['lib/domain/', 'lib/config.ts', 'lib/log.ts'],
  ['lib/store/'],
  // Data migrations run from the operator CLI and from the local runtime's start, off the request path.
  ['lib/auth/', 'lib/catalogue/', 'lib/files/', 'lib/jobs/', 'lib/migrations/', 'lib/queues/', 'lib/render/', 'lib/repositories/'],
  ['lib/operations/'],
  // The console is a front door of its own beside the API's pipeline.
  ['lib/http/', 'lib/console/'],
  ['functions/', 'lib/local/', 'lib/admin/'],
];

function layerOf(file: string): number {
  const index = LAYERS.findIndex((prefixes) => prefixes.some((p) => (p.endsWith('/') ? file.startsWith(p) : file === p)));
  if (index < 0) throw new Error(`${file} belongs to no layer: place it in LAYERS`);
  return index;
}

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return sources(path);
    return (path.endsWith('.ts') || path.endsWith('.tsx')) && !path.endsWith('.d.ts') ? [path] : [];
  });
}

/** Relative imports, static and dynamic, type-only ones included: they bind the layers as much. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/g)].map((m) => m[1] ?? m[2]!);
  return specifiers
    .filter((s) => s.startsWith('.'))
    .map((s) => relative(ROOT, resolve(ROOT, dirname(file), s)).replace(/\.js$/, '.ts'))
    .map((target) => (existsSync(join(ROOT, target)) || !existsSync(join(ROOT, `${target}x`)) ? target : `${target}x`))
    .filter((target) => !target.endsWith('.json'));
}

const FILES = [...sources('lib'), ...sources('functions')];

describe('architecture', () => {
  it('places every module of lib/ and functions/ in a layer', () => {
    expect(() => FILES.forEach(layerOf)).not.toThrow();
  });

  it('has no import that points up a layer', () => {
    const upward = FILES.flatMap((file) =>
      importsOf(file)
        .filter((target) => layerOf(target) > layerOf(file))
        .map((target) => `${file} -> ${target}`),
    );
    expect(upward).toEqual([]);
  });

  it('finds the upward imports it is meant to refuse', () => {
    expect(layerOf('lib/store/keys.ts')).toBeLessThan(layerOf('lib/http/pipeline.ts'));
    expect(importsOf('lib/http/pipeline.ts')).toContain('lib/operations/kernel/router.ts');
  });
});
