import { describe, expect, it } from 'vitest';
import { toOrganisation } from '../../../lib/store/organisations.js';
import { keys } from '../../../lib/store/keys.js';
import { readsStoredEntity } from '../../support/stored-entities.js';

const ORG = '01M84T2AZS9C8TZ6EGZG2RXYH0';
const AT = '2026-01-01T00:00:00.000Z';
const stored = {
  ...keys.organisation(ORG),
  entity: 'organisation',
  id: ORG,
  name: 'Acme',
  slug: 'acme',
  timezone: 'Australia/Sydney',
  contact_name: null,
  contact_email: null,
  contact_phone: null,
  notes: null,
  created_at: AT,
  updated_at: AT,
  version: 1,
  created_by: 'u',
  licensed_classifications: ['OS', 'P'],
};

describe('a stored organisation', () => {
  readsStoredEntity(toOrganisation, stored, { slug: null });

  it('reads without licence terms when created before there were any', () => {
    const { licensed_classifications: _l, ...older } = stored;
    expect(toOrganisation(older).licensed_classifications).toBeUndefined();
  });
});
