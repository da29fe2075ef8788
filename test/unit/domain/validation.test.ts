import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { bodyErrors, once, parameterErrors } from '../../../lib/domain/validation.js';

describe('validation errors', () => {
  it('points into nested body properties with RFC 6901 escaping', () => {
    const schema = z.strictObject({ data: z.strictObject({ 'a/b': z.string() }) });
    const result = schema.safeParse({ data: { 'a/b': 1 } });
    expect(bodyErrors(result.error!)).toEqual([expect.objectContaining({ pointer: '/data/a~1b' })]);
  });

  it('names each unknown property', () => {
    const result = z.strictObject({}).safeParse({ x: 1, y: 2 });
    expect(bodyErrors(result.error!).map((e) => e.pointer)).toEqual(['/x', '/y']);
  });

  it('points at the body itself when it is not an object', () => {
    const result = z.strictObject({}).safeParse([]);
    expect(bodyErrors(result.error!)[0]!.pointer).toBe('');
  });

  it('names query parameters under /query', () => {
    const result = z.strictObject({ 'page[size]': z.coerce.number().max(100) }).safeParse({ 'page[size]': '500', extra: '1' });
    expect(
      parameterErrors(result.error!, 'query')
        .map((e) => e.pointer)
        .sort(),
    ).toEqual(['/query/extra', '/query/page[size]']);
  });
});

describe('once', () => {
  it('builds nothing until it is first called', () => {
    let builds = 0;
    once(() => ++builds);
    expect(builds).toBe(0);
  });

  it('builds on the first call and answers that value to every call', () => {
    let builds = 0;
    const schema = once(() => {
      builds++;
      return z.object({ a: z.string() });
    });
    expect(schema()).toBe(schema());
    expect(builds).toBe(1);
  });
});
