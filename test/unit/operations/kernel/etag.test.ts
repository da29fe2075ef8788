import { describe, expect, it } from 'vitest';
import { etagFor, requireIfMatch } from '../../../../lib/operations/kernel/etag.js';

describe('etag', () => {
  it('is a strong, quoted validator', () => {
    expect(etagFor('organisation', 'A', 3)).toMatch(/^"3-[0-9a-f]{20}"$/);
  });

  it('differs between views of the same version', () => {
    expect(etagFor('control', 'A', 1, 'full')).not.toBe(etagFor('control', 'A', 1, 'redacted'));
  });

  it('lets an If-Match through that names the current ETag', () => {
    expect(() => requireIfMatch(` ${etagFor('organisation', 'A', 7)} `, etagFor('organisation', 'A', 7))).not.toThrow();
  });

  it.each([
    ['another resource', etagFor('organisation', 'B', 7)],
    ['another view', etagFor('organisation', 'A', 7, 'redacted')],
    ['an earlier version', etagFor('organisation', 'A', 6)],
    ['a weak validator', `W/${etagFor('organisation', 'A', 7)}`],
    ['a wildcard', '*'],
    ['garbage', 'nonsense'],
    ['no header', undefined],
  ])('answers 412 for %s', (_label, value) => {
    expect(() => requireIfMatch(value, etagFor('organisation', 'A', 7))).toThrow(expect.objectContaining({ status: 412 }));
  });
});
