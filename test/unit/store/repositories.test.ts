import { describe } from 'vitest';
import { toConnection } from '../../../lib/store/repositories.js';
import { keys } from '../../../lib/store/keys.js';
import { buildRepositoryConnection } from '../../support/factories.js';
import { readsStoredEntity } from '../../support/stored-entities.js';

const connection = buildRepositoryConnection({ api_url: 'https://api.github.com' });
const stored = { ...keys.repositoryConnection(connection.organisation_id, connection.id), entity: 'repository-connection', ...connection };

describe('a stored repository connection', () => {
  readsStoredEntity(toConnection, stored, { provider: 'gitlab' });
});
