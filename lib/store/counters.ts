import * as z from 'zod';
import { once } from '../domain/validation.js';
import { parseFound } from './entity.js';
import type { Item } from './read.js';

/**
 * Counter items: counts that writes ADD to in the transaction that changes what they count
 * (addToCounter and its kin). An ADD creates a count the first time it moves it, so a count no
 * write has moved yet is absent and reads as 0. A count is a non-negative integer: every
 * decrement takes back what an earlier increment counted.
 */
export type Counts = Readonly<Record<string, number>>;

const count = once(() => z.number().int().nonnegative());

/**
 * The schema of one kind of counter item: attributes with these names, or beginning with one of
 * these prefixes (counts named after an id, such as a register's rows), are counts; the item's
 * other attributes pass through unread.
 */
export function counterSchema(names: readonly string[], prefixes: readonly string[] = []) {
  const named = new Set(names);
  return z.looseRecord(
    z.string().refine((name) => named.has(name) || prefixes.some((p) => name.startsWith(p))),
    count(),
  );
}

/** A counter item's counts, parsed with its schema; undefined for an item no write has created yet. */
export const readCounts = (schema: ReturnType<typeof counterSchema>, item: Item | undefined): Counts | undefined => parseFound(schema, item);

/** One count, by a name the item's schema reads as a count: 0 until a write first moves it. */
export const countOf = (counts: Counts | undefined, name: string): number => counts?.[name] ?? 0;

/** Prefixes of the counts named after a register definition, in the counters item of the register's owner. */
export const REGISTER_ROWS = 'register_rows_';
export const REGISTER_ROW_ORDERS = 'register_row_orders_';
export const REGISTER_REVIEWS = 'register_reviews_';

/**
 * The counters item of an organisation, a system or a project (keys.organisationCounters,
 * systemCounters, projectCounters): the totals of their collections, kept in the writing
 * transaction, and the row, row-order and review counts of the registers they own.
 */
const collectionCountersSchema = once(() =>
  counterSchema(['systems', 'members', 'contacts', 'projects'], [REGISTER_ROWS, REGISTER_ROW_ORDERS, REGISTER_REVIEWS]),
);

export const collectionCounts = (item: Item | undefined): Counts | undefined => readCounts(collectionCountersSchema(), item);

/** A collection total from its owner's counters item: 0 before the first of its kind. */
export const collectionCount = (item: Item | undefined, name: 'systems' | 'members' | 'contacts' | 'projects'): number => countOf(collectionCounts(item), name);

/** An item whose revision counted writes move (a project summary, a filter digest shard), as a recount reads it. */
const revisedSchema = once(() => counterSchema(['revision']));

export const revisionOf = (item: Item): number => countOf(readCounts(revisedSchema(), item), 'revision');
