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
  ['lib/errors.ts', 'lib/command-recording.ts', 'lib/lambda-credentials.ts', 'lib/stages.ts', 'lib/source-stack.ts', 'lib/sdk-logging.ts'],
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

/** Import specifiers, static and dynamic, type-only ones included: they bind the layers as much. */
const specifiersOf = (file: string): string[] =>
  [...readFileSync(join(ROOT, file), 'utf8').matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/g)].map(
    (m) => m[1] ?? m[2]!,
  );

/** The modules of this repository a file imports. */
function importsOf(file: string): string[] {
  return specifiersOf(file)
    .filter((s) => s.startsWith('.'))
    .map((s) => relative(ROOT, resolve(ROOT, dirname(file), s)).replace(/\.js$/, '.ts'))
    .map((target) => (existsSync(join(ROOT, target)) || !existsSync(join(ROOT, `${target}x`)) ? target : `${target}x`))
    .filter((target) => !target.endsWith('.json'));
}

const FILES = [...sources('lib'), ...sources('functions')];

/**
 * The table is reached through lib/store only, so that every command against it has one set of
 * conditions, retries and schemas. Reading the change stream (@aws-sdk/client-dynamodb-streams,
 * the local stand-in for Lambda's event source mapping) and unmarshalling stream records are not
 * table commands and stay with the jobs that consume them.
 */
const TABLE_CLIENTS = ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb'];
/** lib/<folder> or functions/<folder>; a module directly in lib/ is a node of its own. */
const folderOf = (file: string) => file.split('/').slice(0, 2).join('/');

/** The import graph with each module replaced by `node` of it; imports within a node are left out. */
function graphOf(files: readonly string[], node: (file: string) => string | undefined): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const from = node(file);
    if (from === undefined) continue;
    for (const target of importsOf(file)) {
      const to = node(target);
      if (to === undefined || to === from) continue;
      graph.set(from, (graph.get(from) ?? new Set()).add(to));
    }
  }
  return graph;
}

/**
 * One cycle through each strongly connected component of the graph (Tarjan), named node by node
 * as `a -> b -> a`, so that a failure says which imports to break.
 */
function cyclesOf(graph: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const components: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node) ?? 0);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
    }
    if (low.get(node) !== index.get(node)) return;
    const component = stack.splice(stack.indexOf(node));
    if (component.length > 1) components.push(component);
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return components.map((component) => {
    const members = new Set(component);
    const start = component.toSorted()[0] ?? '';
    // Breadth first from the start back to it, inside the component: the shortest such cycle.
    const cameFrom = new Map<string, string>();
    const queue = [start];
    while (queue.length) {
      const node = queue.shift() ?? '';
      for (const next of graph.get(node) ?? []) {
        if (!members.has(next) || cameFrom.has(next)) continue;
        cameFrom.set(next, node);
        queue.push(next);
      }
      if (cameFrom.has(start)) break;
    }
    const path = [start];
    for (let node = cameFrom.get(start); node !== undefined && node !== start; node = cameFrom.get(node)) path.unshift(node);
    return [start, ...path].join(' -> ');
  });
}

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

  it('lets only lib/store import the DynamoDB table clients', () => {
    const outside = FILES.filter((file) => !file.startsWith('lib/store/')).filter((file) => specifiersOf(file).some((p) => TABLE_CLIENTS.includes(p)));
    expect(outside).toEqual([]);
  });

  it('lets only the data migrations reach the table scan', () => {
    const scanners = FILES.filter((file) => importsOf(file).includes('lib/store/migration-scan.ts'));
    expect(scanners).toEqual(['lib/migrations/index.ts']);
  });

  it('sees the table clients the store imports', () => {
    expect(specifiersOf('lib/store/client.ts')).toEqual(expect.arrayContaining(TABLE_CLIENTS));
  });

  it('has no import cycle between folders of lib/ and functions/', () => {
    expect(cyclesOf(graphOf(FILES, folderOf))).toEqual([]);
  });

  it('has no import cycle between the group folders of lib/operations', () => {
    const groupOf = (file: string) => (/^lib\/operations\/[^/]+\//.test(file) ? file.split('/').slice(0, 3).join('/') : undefined);
    expect(cyclesOf(graphOf(FILES, groupOf))).toEqual([]);
  });

  it('has no import cycle between the modules of lib/http', () => {
    expect(cyclesOf(graphOf(FILES, (file) => (file.startsWith('lib/http/') ? file : undefined)))).toEqual([]);
  });

  it('names the cycles it is meant to refuse', () => {
    const graph = new Map([
      ['lib/files', new Set(['lib/jobs', 'lib/store'])],
      ['lib/jobs', new Set(['lib/queues'])],
      ['lib/queues', new Set(['lib/files'])],
      ['lib/http/a.ts', new Set(['lib/http/b.ts'])],
      ['lib/http/b.ts', new Set(['lib/http/a.ts'])],
    ]);
    expect(cyclesOf(graph).toSorted()).toEqual(['lib/files -> lib/jobs -> lib/queues -> lib/files', 'lib/http/a.ts -> lib/http/b.ts -> lib/http/a.ts']);
    expect(graphOf(['lib/files/scan.ts'], folderOf).get('lib/files')).toContain('lib/queues');
  });

  it('finds the upward imports it is meant to refuse', () => {
    expect(layerOf('lib/store/keys.ts')).toBeLessThan(layerOf('lib/http/pipeline.ts'));
    expect(importsOf('lib/http/pipeline.ts')).toContain('lib/operations/kernel/router.ts');
  });
});
