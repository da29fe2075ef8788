import type * as z from 'zod';

/**
 * A merge patch or data object must change something: at least one property, other than those
 * that only accompany a change (`besides`). `.apply(changesSomething, 'property')` adds the check
 * and the document's minProperties (with `besides`, a propertyNames rule too) together, so that
 * they cannot drift apart.
 */
export function changesSomething<T extends z.ZodType<object>>(schema: T, what: string, besides: readonly string[] = []): T {
  const names = besides.length ? ` besides ${besides.join(', ')}` : '';
  return schema
    .refine((v) => Object.keys(v).some((k) => !besides.includes(k)), { message: `name at least one ${what} to change${names}` })
    .meta({ minProperties: 1, ...(besides.length ? { not: { propertyNames: { enum: [...besides] } } } : {}) }) as T;
}
