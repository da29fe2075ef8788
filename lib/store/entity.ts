import * as z from 'zod';
import { withoutKeys } from './keys.js';
import { keyString, type Item } from './read.js';

/**
 * A stored item that does not match its entity's schema: never used, and answered as a logged 500
 * (the error mapper logs unhandled errors) that names the item's key so that it can be repaired.
 */
export class StoredItemInvalid extends Error {
  override readonly name = 'StoredItemInvalid';
}

/**
 * The domain value of a stored item, parsed with its entity's schema in place of a cast. Schemas
 * are loose objects: attributes a schema does not name (written by later versions, or bookkeeping
 * such as index markers) pass through unchanged.
 */
export function parseStored<S extends z.ZodType>(schema: S, item: Item): z.infer<S> {
  const parsed = schema.safeParse(withoutKeys(item));
  if (!parsed.success) throw new StoredItemInvalid(`stored item ${keyString(item)} does not match its schema: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
