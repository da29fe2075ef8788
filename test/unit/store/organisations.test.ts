import { describe, expect, it } from 'vitest';
import { toOrganisation } from '../../../lib/store/organisations.js';
import { keys } from '../../../lib/store/keys.js';
import { buildOrganisation } from '../../support/factories.js';
import { readsStoredEntity } from '../../support/stored-entities.js';

const ORG = '01M84T2AZS9C8TZ6EGZG2RXYH0';
const stored = { ...keys.organisation(ORG), entity: 'organisation', ...buildOrganisation({ id: ORG, licensed_classifications: ['OS', 'P'] }) };

describe('a stored organisation', () => {
  readsStoredEntity(toOrganisation, stored, { slug: null });

  it('reads without licence terms when created before there were any', () => {
    const { licensed_classifications: _l, ...older } = stored;
    expect(toOrganisation(older).licensed_classifications).toBeUndefined();
  });
});
