import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatedBlocks, withBlock } from '../../../../lib/operations/kernel/reference-docs.js';
import { OPERATIONS } from '../../../../lib/operations/registry.js';

const root = join(dirname(new URL(import.meta.url).pathname), '../../../..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

function markdownFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

const pages = ['README.md', 'bench/README.md', ...markdownFiles('docs')];

describe('docs/', () => {
  it.each(generatedBlocks(OPERATIONS).map((block) => [`${block.file} (${block.name})`, block] as const))('%s holds what the code declares', (_, block) => {
    const page = read(block.file);
    expect(withBlock(page, block), 'run `npm run docs`').toBe(page);
  });

  it('has a page for every function that serves operations, and none for another', () => {
    const generated = generatedBlocks(OPERATIONS)
      .filter((block) => block.name === 'operations')
      .map((block) => block.file)
      .sort();
    expect(markdownFiles('docs/operations').sort()).toEqual(generated);
  });

  it.each(pages)('%s links only to files that exist', (page) => {
    const text = read(page);
    const targets = [...text.matchAll(/\]\(([^)#\s]+)(#[^)\s]*)?\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z]+:/.test(target));
    const missing = targets.filter((target) => !existsSync(join(root, dirname(page), target)));
    expect(missing.map((target) => relative(root, join(root, dirname(page), target)))).toEqual([]);
  });
});
