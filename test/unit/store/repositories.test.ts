import { describe } from 'vitest';
import { toConnection } from '../../../lib/store/repositories.js';
import { keys } from '../../../lib/store/keys.js';
import { readsStoredEntity } from '../../support/stored-entities.js';

const stored = {
  ...keys.repositoryConnection('01M84T2AZS9C8TZ6EGZG2RXYH0', '01M84T2AZS9C8TZ6EGZG2RXYH9'),
  entity: 'repository-connection',
  id: '01M84T2AZS9C8TZ6EGZG2RXYH9',
  organisation_id: '01M84T2AZS9C8TZ6EGZG2RXYH0',
  provider: 'github',
  url: 'https://github.com/acme/policies',
  name: 'Policies',
  created_at: '2026-01-01T00:00:00.000Z',
  api_url: 'https://api.github.com',
};

describe('a stored repository connection', () => {
  readsStoredEntity(toConnection, stored, { provider: 'gitlab' });
});
