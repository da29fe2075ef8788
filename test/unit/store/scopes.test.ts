import { describe } from 'vitest';
import { keys } from '../../../lib/store/keys.js';
import { asEngagement, asScope } from '../../../lib/store/scopes.js';
import { readsStoredEntity } from '../../support/stored-entities.js';

const AT = '2026-01-01T00:00:00.000Z';

describe('a stored project scope', () => {
  const stored = {
    ...keys.projectScope('P1'),
    entity: 'project-scope',
    data: { objectives: 'Assess', locations: ['Canberra'] },
    provider_selections: [{ provider_id: '01M84T2AZS9C8TZ6EGZG2RXYH1', release_id: '01M84T2AZS9C8TZ6EGZG2RXYH2' }],
    provider_selections_updated_at: AT,
    provider_selections_updated_by: 'U1',
    updated_at: AT,
    updated_by: 'U1',
    version: 3,
  };
  readsStoredEntity(asScope, stored, { provider_selections: [{ provider_id: 'P' }] });
});

describe('stored engagement details', () => {
  const stored = {
    ...keys.projectEngagement('P1'),
    entity: 'project-engagement',
    data: { client_name: 'Agency', start_date: '2026-02-01' },
    updated_at: AT,
    updated_by: 'U1',
    version: 1,
  };
  readsStoredEntity(asEngagement, stored, { data: { client_name: null } });
});
