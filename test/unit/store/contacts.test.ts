import { describe } from 'vitest';
import { toContact } from '../../../lib/store/contacts.js';
import { keys } from '../../../lib/store/keys.js';
import { describeCollectionCount, readsStoredEntity } from '../../support/stored-entities.js';
import { contactCount } from '../../../lib/store/contacts.js';

const AT = '2026-01-01T00:00:00.000Z';
const stored = {
  ...keys.contact('01M84T2AZS9C8TZ6EGZG2RXYH1', '01M84T2AZS9C8TZ6EGZG2RXYH2'),
  entity: 'contact',
  id: '01M84T2AZS9C8TZ6EGZG2RXYH2',
  system_id: '01M84T2AZS9C8TZ6EGZG2RXYH1',
  organisation_id: '01M84T2AZS9C8TZ6EGZG2RXYH0',
  name: 'Ann',
  role: null,
  email: 'ann@example.org',
  phone: null,
  organisation_name: null,
  status: 'active',
  created_at: AT,
  updated_at: AT,
  version: 1,
};

describe('a stored contact', () => {
  readsStoredEntity(toContact, stored, { status: 'archived' });
});

describeCollectionCount("a system's contact count", contactCount, {
  counters: keys.systemCounters('01M84T2AZS9C8TZ6EGZG2RXYH1'),
  name: 'contacts',
  neighbour: 'projects',
  malformed: { what: 'that is not a non-negative integer', value: -1 },
});
