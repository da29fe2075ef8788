import { describe } from 'vitest';
import { toSystem } from '../../../lib/store/systems.js';
import { keys } from '../../../lib/store/keys.js';
import { buildSystem } from '../../support/factories.js';
import { readsStoredEntity } from '../../support/stored-entities.js';

const system = buildSystem({ version: 2 });
const stored = { ...keys.system(system.organisation_id, system.id), entity: 'system', ...system };

describe('a stored system', () => {
  readsStoredEntity(toSystem, stored, { short_code: undefined });
});
