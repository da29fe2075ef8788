import { describe, expect, it } from 'vitest';
import { belowLimit, itemAbsent, versionIs } from '../../../lib/store/conditions.js';
import { keys } from '../../../lib/store/keys.js';
import { StoredItemInvalid } from '../../../lib/store/entity.js';
import { addToCounter, replaceVersioned, staleOrMissing, storedVersion } from '../../../lib/store/versioned.js';

const item = { ...keys.system('O', 'S'), name: 'Payroll', version: 3 };

describe('storedVersion', () => {
  it('is the version replaceVersioned wrote, and 0 for an item never written', () => {
    expect([storedVersion(item), storedVersion(undefined)]).toEqual([3, 0]);
  });

  it('refuses an item without a numeric version, naming its key', () => {
    const read = () => storedVersion({ ...item, version: '3' });
    expect(read).toThrow(StoredItemInvalid);
    expect(read).toThrow('ORG#O|SYSTEM#S');
  });
});

describe('replaceVersioned', () => {
  it('puts the item at the next version, on condition that the stored version is the one named', () => {
    expect(replaceVersioned(item, 3)).toMatchObject({ kind: 'put', item: { ...item, version: 4 }, condition: versionIs(3) });
  });

  it('tells a stale version from a deleted item when its condition fails', () => {
    expect(replaceVersioned(item, 3).onConditionFailed).toBe(staleOrMissing);
  });

  it('writes version 1 of an item never written, on condition that it is still absent', () => {
    const write = replaceVersioned({ ...keys.system('O', 'S'), name: 'Payroll' }, 0);
    expect([write.kind === 'put' && write.item.version, write.condition]).toEqual([1, itemAbsent()]);
  });

  it('answers 412 when an item never written has been written meanwhile', () => {
    const write = replaceVersioned(item, 0);
    expect(write.onConditionFailed?.(item)).toMatchObject({ status: 412 });
  });
});

describe('staleOrMissing', () => {
  it('answers 412 for an item still there at another version', () => {
    expect(staleOrMissing(item)).toMatchObject({ status: 412, code: 'etag_mismatch' });
  });

  it('answers 404 for an item that is gone', () => {
    expect(staleOrMissing(undefined)).toMatchObject({ status: 404, code: 'not_found' });
  });
});

describe('addToCounter', () => {
  it('adds to the counter unconditionally when no limit is given', () => {
    expect(addToCounter(keys.organisationCounters('O'), 'systems', -1)).toEqual({
      kind: 'update',
      key: keys.organisationCounters('O'),
      update: 'ADD #n :d',
      names: { '#n': 'systems' },
      values: { ':d': -1 },
    });
  });

  it('refuses with the limit error once the counter reaches the limit', () => {
    const limitReached = new Error('licence limit');
    const write = addToCounter(keys.organisationCounters('O'), 'projects', 1, { max: 5, onLimit: () => limitReached });
    expect([write.condition, write.onConditionFailed?.(undefined)]).toEqual([belowLimit('projects', 5), limitReached]);
  });
});
