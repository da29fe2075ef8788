import { expect, it } from 'vitest';
import { StoredItemInvalid } from '../../lib/store/entity.js';
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
