import { describe } from 'vitest';
import { toSystem } from '../../../lib/store/systems.js';
import { keys } from '../../../lib/store/keys.js';
import { readsStoredEntity } from '../../support/stored-entities.js';

const AT = '2026-01-01T00:00:00.000Z';
const stored = {
  ...keys.system('01M84T2AZS9C8TZ6EGZG2RXYH0', '01M84T2AZS9C8TZ6EGZG2RXYH1'),
  entity: 'system',
  id: '01M84T2AZS9C8TZ6EGZG2RXYH1',
  organisation_id: '01M84T2AZS9C8TZ6EGZG2RXYH0',
  name: 'Payroll',
  short_code: 'PAY',
  description: null,
  created_at: AT,
  updated_at: AT,
  version: 2,
};

describe('a stored system', () => {
  readsStoredEntity(toSystem, stored, { short_code: undefined });
});
