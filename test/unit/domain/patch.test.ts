import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { changesSomething } from '../../../lib/domain/patch.js';

const Patch = z.strictObject({ name: z.string(), comment: z.string() }).partial().apply(changesSomething, 'property');
const WithComment = z
  .strictObject({ name: z.string(), comment: z.string() })
  .partial()
  .apply((s) => changesSomething(s, 'property', ['comment']));

describe('changesSomething', () => {
  it('accepts a patch that names a property', () => {
    expect(Patch.safeParse({ name: 'x' }).success).toBe(true);
  });

  it('refuses an empty patch, saying what to name', () => {
    expect(Patch.safeParse({}).error?.issues[0]?.message).toBe('name at least one property to change');
  });

  it('refuses a patch of only the properties that accompany a change', () => {
    expect(WithComment.safeParse({ comment: 'why' }).error?.issues[0]?.message).toBe('name at least one property to change besides comment');
    expect(WithComment.safeParse({ comment: 'why', name: 'x' }).success).toBe(true);
  });

  it('tells the document the same rule: at least one property, and not only the accompanying ones', () => {
    expect(z.toJSONSchema(WithComment)).toMatchObject({ minProperties: 1, not: { propertyNames: { enum: ['comment'] } } });
  });
});
