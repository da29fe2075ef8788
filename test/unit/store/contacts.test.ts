import { describe, expect, it } from 'vitest';
import { toContact } from '../../../lib/store/contacts.js';
import { keys } from '../../../lib/store/keys.js';
import { readsStoredEntity } from '../../support/stored-entities.js';
import { contactCount } from '../../../lib/store/contacts.js';
import { StoredItemInvalid } from '../../../lib/store/entity.js';

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

describe("a system's contact count", () => {
  const counters = keys.systemCounters('01M84T2AZS9C8TZ6EGZG2RXYH1');

  it('reads the count from the counters item, 0 before the first contact', () => {
    expect(contactCount({ ...counters, contacts: 3, projects: 1 })).toBe(3);
    expect(contactCount(undefined)).toBe(0);
  });

  it('refuses a count that is not a non-negative integer, naming the key', () => {
    expect(() => contactCount({ ...counters, contacts: -1 })).toThrow(StoredItemInvalid);
    expect(() => contactCount({ ...counters, contacts: -1 })).toThrow('SYSTEM#01M84T2AZS9C8TZ6EGZG2RXYH1|COUNTERS');
  });
});
