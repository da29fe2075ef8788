import { describe, expect, it } from 'vitest';
import { metadataOf } from '../../../lib/domain/evidence.js';
import { evidenceItem, toEvidence } from '../../../lib/store/evidence.js';
import { buildEvidence, buildUploadEvidence } from '../../support/factories.js';
import { readsStoredEntity } from '../../support/stored-entities.js';

const stored = evidenceItem(
  buildEvidence({
    kind: 'register_link',
    ...metadataOf({ title: 'Asset register', classification: 'OS', collected_on: '2026-01-01' }),
    source: { kind: 'register', definition_id: '01M84T2AZS9C8TZ6EGZG2RXYH8' },
  }),
);

describe('a stored evidence item', () => {
  readsStoredEntity(toEvidence, stored, { source: { kind: 'register' } });

  it('reads an upload with the file fields the scan pipeline mirrors', () => {
    const upload = buildUploadEvidence();
    expect(toEvidence(evidenceItem(upload))).toMatchObject(upload);
  });
});
