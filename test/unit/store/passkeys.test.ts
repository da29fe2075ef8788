import { describe } from 'vitest';
import { passkeySchema } from '../../../lib/store/passkeys.js';
import { parseStored } from '../../../lib/store/entity.js';
import type { Item } from '../../../lib/store/read.js';
import { keys } from '../../../lib/store/keys.js';
import { readsStoredEntity } from '../../support/stored-entities.js';

const stored = {
  ...keys.passkey('01M84T2AZS9C8TZ6EGZG2RXYHA', 'cred'),
  entity: 'passkey',
  id: '01M84T2AZS9C8TZ6EGZG2RXYHB',
  user_id: '01M84T2AZS9C8TZ6EGZG2RXYHA',
  credential_id: 'cred',
  public_key: 'key',
  counter: 0,
  transports: ['internal'],
  name: 'Laptop',
  created_at: '2026-01-01T00:00:00.000Z',
  backed_up: true,
};

describe('a stored passkey', () => {
  readsStoredEntity((item: Item) => parseStored(passkeySchema(), item), stored, { counter: '0' });
});
