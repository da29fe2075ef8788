import * as z from 'zod';
import { once } from '../domain/validation.js';
import { logger } from '../log.js';
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

/**
 * What the sweep judges on a job's record (lib/queues/recovery.ts): the lease its worker renews
 * and the sweep's re-queues, absent until a worker or the sweep first writes them. The schema of
 * each record the sweep reads names them, so that one it cannot judge is refused with its key.
 */
export interface Swept {
  lease_until?: string;
  requeued_at?: string;
  requeues?: number;
}
export const sweptFields = once(() => ({ lease_until: z.string().optional(), requeued_at: z.string().optional(), requeues: z.number().optional() }));

/**
 * The records a sweep found, each read on its own: a malformed one is logged with its key and left
 * where it is, so that it does not stop the recovery of the others on every tick.
 */
export function parseEach<T>(what: string, items: readonly Item[], parse: (item: Item) => T): T[] {
  return items.flatMap((item) => {
    try {
      return [parse(item)];
    } catch (error) {
      if (!(error instanceof StoredItemInvalid)) throw error;
      logger.error(`skipped a malformed ${what}`, { key: keyString(item), error });
      return [];
    }
  });
}

/** parseStored of what a read may not have found. */
export const parseFound = <S extends z.ZodType>(schema: S, item: Item | undefined): z.infer<S> | undefined => (item ? parseStored(schema, item) : undefined);

/** The attributes loose schemas name, at every depth, without the index signatures that let the others through. */
type Named<T> = T extends ReadonlySet<unknown> | ReadonlyMap<unknown, unknown>
  ? T
  : T extends readonly unknown[]
    ? { [K in keyof T]: Named<T[K]> }
    : T extends object
      ? { [K in keyof T as string extends K ? never : K]: Named<T[K]> }
      : T;

/** Why a schema does not read its domain type, as the compiler reports it; `true` when it does. */
type Agreement<S extends z.ZodType, T> = [T] extends [Named<z.input<S>>]
  ? [z.output<S>] extends [T]
    ? [Exclude<keyof T, keyof Named<z.output<S>>>] extends [never]
      ? true
      : { unnamed: Exclude<keyof T, keyof Named<z.output<S>>> }
    : { parsesOutsideType: z.output<S> }
  : { refusesWhatIsWritten: T };

/**
 * The schema of a stored entity whose domain type lives in lib/domain (which cannot import the
 * store), checked against it at compile time: every value of the type, which is what writers
 * store, parses; every parsed value is one; and the schema names every attribute of the type. A
 * field added to one and not the other is then a type error, not a 500 or an unchecked read.
 */
export const storedSchema =
  <T>() =>
  <S extends z.ZodType>(schema: S, ..._agrees: Agreement<S, T> extends true ? [] : [mismatch: Agreement<S, T>]): S =>
    schema;
