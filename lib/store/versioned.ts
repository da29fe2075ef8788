import * as z from 'zod';
import { notFound, preconditionFailed } from '../errors.js';
import { once } from '../domain/validation.js';
import { belowLimit, itemAbsent, versionIs } from './conditions.js';
import { parseFound } from './entity.js';
import type { Key } from './keys.js';
import type { Item } from './read.js';
import type { WriteItem } from './transact.js';

/** A stale version is 412; an item that is gone is 404 (told apart by ALL_OLD, no extra read). */
export const staleOrMissing = (current: Record<string, unknown> | undefined) => (current ? preconditionFailed() : notFound());

const versionedSchema = once(() => z.looseObject({ version: z.number() }));

/** The version of an item replaceVersioned writes, for the ETag of its next write: 0 for one never written. */
export const storedVersion = (item: Item | undefined): number => parseFound(versionedSchema(), item)?.version ?? 0;

/**
 * Replaces a versioned item if the stored version is still the one the client's ETag named.
 * Version 0 stands for "never written": the item must still be absent.
 */
export function replaceVersioned(item: Key & Record<string, unknown>, expectedVersion: number): WriteItem {
  return {
    kind: 'put',
    item: { ...item, version: expectedVersion + 1 },
    condition: expectedVersion === 0 ? itemAbsent() : versionIs(expectedVersion),
    onConditionFailed: expectedVersion === 0 ? () => preconditionFailed() : staleOrMissing,
  };
}

/** Atomic ADD on a counter attribute, optionally refused at a limit (licence limits). */
export function addToCounter(key: Key, attribute: string, delta: number, limit?: { max: number; onLimit: () => Error }): WriteItem {
  return {
    kind: 'update',
    key,
    update: 'ADD #n :d',
    names: { '#n': attribute },
    values: { ':d': delta },
    ...(limit ? { condition: belowLimit(attribute, limit.max), onConditionFailed: limit.onLimit } : {}),
  };
}
