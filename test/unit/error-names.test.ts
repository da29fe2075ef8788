import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SOURCES = ['lib', 'functions', 'infra'];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every error class of the project, with what its body starts with. */
const ERROR_CLASSES = SOURCES.flatMap(sourceFiles).flatMap((file) =>
  [...readFileSync(join(ROOT, file), 'utf8').matchAll(/class (\w+) extends (\w*Error)\b[^{]*\{\n?([^\n]*)/g)].map(([, name, , firstLine]) => ({
    file,
    name: name!,
    firstLine: firstLine!,
  })),
);

/**
 * Minified bundles rename classes, so constructor.name is never what the source says; errors are
 * recognised by `name`, which each class must therefore set to its own name.
 */
describe('error classes', () => {
  it('are found in the sources', () => {
    expect(ERROR_CLASSES.map((c) => c.name)).toEqual(expect.arrayContaining(['ApiError', 'TransactionConflictError', 'ReceiptRaceError', 'RetryableConflict']));
  });

  // A class whose subclasses name themselves types its name as a string (a literal type could not be overridden).
  it.each(ERROR_CLASSES.map((c) => [c.name, c] as const))('%s declares its name as its first member', (name, c) => {
    expect(c.firstLine.trim(), c.file).toMatch(new RegExp(`^override readonly name(: string)? = '${name}';$`));
  });
});
