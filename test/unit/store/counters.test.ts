import { describe, expect, it } from 'vitest';
import { collectionCount, collectionCounts, counterSchema, countOf, readCounts, revisionOf } from '../../../lib/store/counters.js';
import { StoredItemInvalid } from '../../../lib/store/entity.js';
import { keys } from '../../../lib/store/keys.js';

const key = keys.systemCounters('S1');
const schema = counterSchema(['count'], ['n_']);

describe('counter items', () => {
  it('reads named counts and counts named after an id, passing other attributes through', () => {
    const counts = readCounts(schema, { ...key, count: 3, n_T1: 2, ttl: 9, note: 'kept' });
    expect([countOf(counts, 'count'), countOf(counts, 'n_T1')]).toEqual([3, 2]);
  });

  it('reads a count no write has moved yet, and an item no write has created, as 0', () => {
    expect(countOf(readCounts(schema, { ...key, n_T1: 2 }), 'count')).toBe(0);
    expect(countOf(readCounts(schema, undefined), 'count')).toBe(0);
  });

  it.each([
    ['a string', { count: '3' }],
    ['a negative count', { count: -1 }],
    ['a fraction', { n_T1: 1.5 }],
  ])('refuses %s, naming the item key', (_, broken) => {
    const read = () => readCounts(schema, { ...key, ...broken });
    expect(read).toThrow(StoredItemInvalid);
    expect(read).toThrow('SYSTEM#S1|COUNTERS');
  });
});

describe('collection counters', () => {
  it('reads the totals and the register counts of an owner', () => {
    const item = { ...key, contacts: 2, projects: 5, register_rows_R: 7, register_reviews_R: 1 };
    expect([collectionCount(item, 'contacts'), collectionCount(item, 'projects'), collectionCount(item, 'systems')]).toEqual([2, 5, 0]);
    expect(collectionCounts(item)).toMatchObject({ register_rows_R: 7, register_reviews_R: 1 });
  });

  it('refuses a malformed register count, naming the key', () => {
    const read = () => collectionCounts({ ...key, register_row_orders_R: 'x' });
    expect(read).toThrow(StoredItemInvalid);
    expect(read).toThrow('SYSTEM#S1|COUNTERS');
    expect(read).toThrow('register_row_orders_R');
  });
});

describe('revisions of counted items', () => {
  it('reads the revision of a summary or a digest shard, 0 before any', () => {
    expect(revisionOf({ ...keys.projectSummary('P'), revision: 4, controls: 3 })).toBe(4);
    expect(revisionOf({ ...keys.projectSummary('P'), controls: 3 })).toBe(0);
  });

  it('refuses a revision that is not a count, naming the key', () => {
    expect(() => revisionOf({ ...keys.projectSummary('P'), revision: '4' })).toThrow('PROJECT#P|SUMMARY');
  });
});
