import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { gsi1, keys } from '../../../lib/store/keys.js';

/**
 * docs/storage.md's access-pattern table against the key builders: every key a builder makes and
 * every GSI1 partition appears in the table, so that a new item type cannot be added unlisted.
 * Placeholders compare as `<>` whatever they are called (`<project>`, `<position, 5 digits>`).
 */
const table = readFileSync(new URL('../../../docs/storage.md', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line.startsWith('|'))
  .join('\n')
  .replace(/<[^>]*>/g, '<>');

const PLACEHOLDER = '<>';
const shape = (value: string) => value.replace(/0*<>/g, PLACEHOLDER);
/** Calls a key builder with a placeholder for each of its parameters (numbers too: they only pad). */
const build = <T>(builder: (...args: never[]) => T): T => (builder as (...args: string[]) => T)(...Array.from({ length: builder.length }, () => PLACEHOLDER));

describe('docs/storage.md', () => {
  it.each(Object.entries(keys))('lists the partition and sort keys of %s', (_, builder) => {
    const key = build(builder);
    expect(table).toContain(shape(key.PK));
    expect(table).toContain(shape(key.SK));
  });

  it.each(Object.entries(gsi1))('lists the GSI1 partition %s', (_, partition) => {
    const value = typeof partition === 'function' ? build(partition) : partition;
    expect(table).toContain(`GSI1PK=${shape(value)}`);
  });
});
