import { describe, expect, it } from 'vitest';
import { etagFor, versionFromIfMatch } from '../../../lib/operations/kernel/etag.js';

describe('etag', () => {
  it('is a strong, quoted validator', () => {
    expect(etagFor('organisation', 'A', 3)).toMatch(/^"3-[0-9a-f]{20}"$/);
  });

  it('differs between views of the same version', () => {
    expect(etagFor('control', 'A', 1, 'full')).not.toBe(etagFor('control', 'A', 1, 'redacted'));
  });

  it('gives back the version it names for the same resource and view', () => {
    expect(versionFromIfMatch(etagFor('organisation', 'A', 7), 'organisation', 'A')).toBe(7);
  });

  it.each([
    ['another resource', etagFor('organisation', 'B', 7)],
    ['another view', etagFor('organisation', 'A', 7, 'redacted')],
    ['a weak validator', `W/${etagFor('organisation', 'A', 7)}`],
    ['a wildcard', '*'],
    ['garbage', 'nonsense'],
  ])('validates nothing for %s', (_label, value) => {
    expect(versionFromIfMatch(value, 'organisation', 'A')).toBeUndefined();
  });
});
