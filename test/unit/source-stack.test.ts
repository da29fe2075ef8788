import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { transform } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourceStack, withSourceStack } from '../../lib/source-stack.js';

/** A source whose third line throws, minified as the bundles are, with its map beside it or not. */
const SOURCE = ['export function fail(message: string): never {', "  const reason = 'failed: ' + message;", '  throw new Error(reason);', '}', ''].join('\n');

let dir: string;
let mapped: { fail: (message: string) => never };
let unmapped: { fail: (message: string) => never };

async function chunk(name: string, withMap: boolean): Promise<{ fail: (message: string) => never }> {
  const { code, map } = await transform(SOURCE, { loader: 'ts', format: 'esm', minify: true, sourcemap: 'external', sourcefile: 'lib/example.ts' });
  const file = join(dir, name);
  await writeFile(file, code);
  if (withMap) await writeFile(`${file}.map`, map);
  return (await import(pathToFileURL(file).href)) as { fail: (message: string) => never };
}

function thrownBy(fail: (message: string) => never): Error {
  try {
    fail('on purpose');
  } catch (error) {
    return error as Error;
  }
  throw new Error('fail returned');
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'source-stack-'));
  mapped = await chunk('mapped.mjs', true);
  unmapped = await chunk('unmapped.mjs', false);
});

afterAll(() => rm(dir, { recursive: true, force: true }));

describe('sourceStack', () => {
  it('names the source file, line and column of a frame in a chunk with its map beside it', () => {
    const stack = sourceStack(thrownBy(mapped.fail).stack!);
    expect(stack.split('\n')[1]).toMatch(/\(lib\/example\.ts:3:9\)$/);
  });

  it('leaves a frame of a chunk without a map as it was', () => {
    const stack = thrownBy(unmapped.fail).stack!;
    expect(sourceStack(stack)).toBe(stack);
  });

  it('leaves a stack of source files (run from source) as it was', () => {
    const stack = new Error('from source').stack!;
    expect(sourceStack(stack)).toBe(stack);
  });
});

describe('withSourceStack', () => {
  it('maps the stacks of the error and of its causes, in place', () => {
    const cause = thrownBy(mapped.fail);
    const error = new Error('outer', { cause: new Error('middle', { cause }) });
    expect(withSourceStack(error)).toBe(error);
    expect(cause.stack).toContain('lib/example.ts:3:');
    expect(cause.stack).not.toContain('mapped.mjs');
  });

  it('ends at a cause that refers back to an error it has seen', () => {
    const error = thrownBy(mapped.fail);
    error.cause = error;
    expect(withSourceStack(error).stack).toContain('lib/example.ts:3:');
  });
});
