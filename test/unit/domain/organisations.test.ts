import { describe, expect, it } from 'vitest';
import { canonicalTimezone, SLUG_PATTERN, slugify } from '../../../lib/domain/organisations.js';

describe('canonicalTimezone', () => {
  it.each([
    ['Australia/Sydney', 'Australia/Sydney'],
    ['australia/sydney', 'Australia/Sydney'],
    ['UTC', 'UTC'],
  ])('accepts %s as %s', (input, expected) => {
    expect(canonicalTimezone(input)).toBe(expected);
  });

  it.each(['Mars/Olympus', '+10:00', '', 'Australia/../etc'])('refuses %j', (input) => {
    expect(canonicalTimezone(input)).toBeUndefined();
  });
});

describe('slugify', () => {
  it.each([
    ['Acme Security Pty Ltd', 'acme-security-pty-ltd'],
    ['Café  Ünïcode', 'cafe-unicode'],
    ['A', 'org-a'],
    ['!!!', 'org-x'],
  ])('turns %j into %j', (name, slug) => {
    expect(slugify(name)).toBe(slug);
  });

  it('always produces a valid slug', () => {
    for (const name of ['x'.repeat(300), '--a--', '日本語', 'a b']) expect(slugify(name)).toMatch(SLUG_PATTERN);
  });
});
