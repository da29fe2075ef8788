import { describe } from 'vitest';
import { toUser } from '../../../lib/store/identity.js';
import { keys } from '../../../lib/store/keys.js';
import { readsStoredEntity } from '../../support/stored-entities.js';

const stored = {
  ...keys.user('01M84T2AZS9C8TZ6EGZG2RXYHA'),
  GSI1PK: 'USERS',
  GSI1SK: 'ann@example.org',
  entity: 'user',
  id: '01M84T2AZS9C8TZ6EGZG2RXYHA',
  email: 'ann@example.org',
  name: 'Ann',
  status: 'active',
  super_user: false,
  created_at: '2026-01-01T00:00:00.000Z',
  passkeys: 1,
};

describe('a stored user', () => {
  readsStoredEntity(toUser, stored, { super_user: 'no' });
});
