import { describe, expect, it } from 'vitest';
import { StoredItemInvalid } from '../../lib/store/entity.js';
import type { Key } from '../../lib/store/keys.js';
import { keyString, type Item } from '../../lib/store/read.js';

/**
 * The two behaviours every entity module's read has: a stored item reads as its domain value
 * without the table's keys, and an item that fails the schema is refused with its key named.
 */
export function readsStoredEntity(read: (item: Item) => unknown, stored: Item, broken: Record<string, unknown>): void {
  it('reads a stored item as its domain value, without the table keys', () => {
    const { PK: _pk, SK: _sk, GSI1PK: _g1, GSI1SK: _g2, entity: _e, ttl: _t, ...value } = stored;
    expect(read(stored)).toEqual(value);
  });

  it('refuses a stored item that fails its schema, naming its key', () => {
    const read_ = () => read({ ...stored, ...broken });
    expect(read_).toThrow(StoredItemInvalid);
    expect(read_).toThrow(keyString(stored));
  });
}

/**
 * The unit tests of a collection total read from its owner's counters item (lib/store/counters.ts
 * collectionCount): the stored count beside the item's other counts, 0 before the first of its kind,
 * and a malformed count refused with the key named.
 */
export function describeCollectionCount(
  title: string,
  read: (item: Item | undefined) => number,
  c: { counters: Key; name: string; neighbour: string; malformed: { what: string; value: unknown } },
): void {
  describe(title, () => {
    it('reads the count from the counters item, 0 before the first', () => {
      expect(read({ ...c.counters, [c.name]: 3, [c.neighbour]: 4 })).toBe(3);
      expect(read({ ...c.counters, [c.neighbour]: 4 })).toBe(0);
      expect(read(undefined)).toBe(0);
    });

    it(`refuses a count ${c.malformed.what}, naming the key`, () => {
      const item = { ...c.counters, [c.name]: c.malformed.value };
      expect(() => read(item)).toThrow(StoredItemInvalid);
      expect(() => read(item)).toThrow(keyString(c.counters));
    });
  });
}
