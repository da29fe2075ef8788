import { describe } from 'vitest';
import { toRelease } from '../../../lib/store/catalogue-releases.js';
import { keys } from '../../../lib/store/keys.js';
import { readsStoredEntity } from '../../support/stored-entities.js';

const stored = {
  ...keys.catalogueRelease('01M84T2AZS9C8TZ6EGZG2RXYHA'),
  entity: 'catalogue-release',
  id: '01M84T2AZS9C8TZ6EGZG2RXYHA',
  version: '2025.12.0',
  title: 'Information Security Manual (December 2025)',
  published: '2025-12-04',
  entries: 1100,
  controls: 992,
  principles: 108,
  status: 'complete',
  digest: 'a'.repeat(64),
  sample: false,
  imported_at: '2026-01-01T00:00:00.000Z',
};

describe('a stored catalogue release', () => {
  readsStoredEntity(toRelease, stored, { status: 'done' });
});
