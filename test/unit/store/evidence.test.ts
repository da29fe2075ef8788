import { describe, expect, it } from 'vitest';
import { toEvidence } from '../../../lib/store/evidence.js';
import { keys } from '../../../lib/store/keys.js';
import { readsStoredEntity } from '../../support/stored-entities.js';

const AT = '2026-01-01T00:00:00.000Z';
const stored = {
  ...keys.evidence('01M84T2AZS9C8TZ6EGZG2RXYH3', '01M84T2AZS9C8TZ6EGZG2RXYH6', '01M84T2AZS9C8TZ6EGZG2RXYH7'),
  entity: 'evidence',
  id: '01M84T2AZS9C8TZ6EGZG2RXYH7',
  project_id: '01M84T2AZS9C8TZ6EGZG2RXYH3',
  control_id: '01M84T2AZS9C8TZ6EGZG2RXYH6',
  kind: 'register_link',
  status: 'ready',
  version: 1,
  title: 'Asset register',
  description: null,
  evidence_type: null,
  classification: 'OS',
  source_system: null,
  external_reference: null,
  external_access_instructions: null,
  collected_on: '2026-01-01',
  review_due: null,
  source: { kind: 'register', definition_id: '01M84T2AZS9C8TZ6EGZG2RXYH8' },
  created_at: AT,
  created_by: 'u',
  updated_at: AT,
  updated_by: 'u',
};

describe('a stored evidence item', () => {
  readsStoredEntity(toEvidence, stored, { source: { kind: 'register' } });

  it('reads an upload with the file fields the scan pipeline mirrors', () => {
    const upload = { ...stored, kind: 'upload', status: 'pending', source: null, upload_id: 'up', file_status: 'ready', error_code: null, size: 3 };
    expect(toEvidence(upload).file_status).toBe('ready');
  });
});
