import { describe, expect, it } from 'vitest';
import { list, required, UsageError, type Values } from '../../../lib/admin/options.js';

describe('required', () => {
  it('answers the option given', () => {
    expect(required({ email: 'a@example.org' } as Values, 'email')).toBe('a@example.org');
  });

  it.each([
    ['missing', {}],
    ['blank', { email: '  ' }],
  ])('refuses a %s option as a usage error naming it', (_, values) => {
    expect(() => required(values as Values, 'email')).toThrow(new UsageError('--email is required'));
  });
});

describe('list', () => {
  it('splits on commas, trims, and drops empty entries', () => {
    expect(list(' read, write ,,audit ')).toEqual(['read', 'write', 'audit']);
  });
});
