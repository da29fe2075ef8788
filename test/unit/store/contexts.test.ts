import { describe, expect, it } from 'vitest';
import { asContext } from '../../../lib/store/contexts.js';
import { keys } from '../../../lib/store/keys.js';
import { readsStoredEntity } from '../../support/stored-entities.js';

const stored = {
  ...keys.systemContext('S1'),
  entity: 'system-context',
  definition_version: '2025.1',
  data: { hosting: 'cloud', notes: null },
  updated_at: '2026-01-01T00:00:00.000Z',
  updated_by: 'U1',
  version: 2,
};

describe('a stored context', () => {
  readsStoredEntity(asContext, stored, { data: { hosting: 3 } });

  it('is undefined before its first change', () => {
    expect(asContext(undefined)).toBeUndefined();
  });
});
