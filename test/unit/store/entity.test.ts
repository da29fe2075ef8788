import { describe, expect, it } from 'vitest';
import { toRelease } from '../../../lib/store/catalogue-releases.js';
import { StoredItemInvalid } from '../../../lib/store/entity.js';

const stored = {
  PK: 'CATALOGUE',
  SK: 'RELEASE#01J',
  entity: 'catalogue-release',
  id: '01J',
  version: '2025.03.1',
  title: 'ISM',
  published: null,
  entries: 3,
  controls: 2,
  principles: 1,
  status: 'complete',
  digest: 'abc',
  sample: false,
  imported_at: '2026-01-01T00:00:00.000Z',
};

describe('stored entities', () => {
  it('reads a stored item as its domain value without the table keys', () => {
    const { PK: _pk, SK: _sk, entity: _entity, ...release } = stored;
    expect(toRelease(stored)).toEqual(release);
  });

  it('refuses a stored item that fails its schema, naming its key', () => {
    expect(() => toRelease({ ...stored, status: 'lost' })).toThrow(StoredItemInvalid);
    expect(() => toRelease({ ...stored, status: 'lost' })).toThrow(/CATALOGUE\|RELEASE#01J/);
  });
});
