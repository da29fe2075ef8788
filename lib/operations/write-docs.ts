import { readFileSync, writeFileSync } from 'node:fs';
import { generatedBlocks, withBlock } from './kernel/reference-docs.js';
import { OPERATIONS } from './registry.js';

/** `npm run docs`: rewrites the generated blocks of docs/ from the registry and the settings. */
const root = new URL('../../', import.meta.url);
for (const block of generatedBlocks(OPERATIONS)) {
  const file = new URL(block.file, root);
  const page = readFileSync(file, 'utf8');
  const next = withBlock(page, block);
  if (next !== page) {
    writeFileSync(file, next);
    console.log(`${block.file}: ${block.name} rewritten`);
  }
}
