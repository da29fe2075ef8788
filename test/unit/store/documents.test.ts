import { describe, expect, it } from 'vitest';
import { asGenerationLease, takeLease, toDocument } from '../../../lib/store/documents.js';
import { keys } from '../../../lib/store/keys.js';
import { readsStoredEntity } from '../../support/stored-entities.js';
import { buildGeneration } from '../../support/factories.js';

const AT = '2026-01-01T00:00:00.000Z';
const stored = {
  ...keys.document('01M84T2AZS9C8TZ6EGZG2RXYH3', '01M84T2AZS9C8TZ6EGZG2RXYH5'),
  entity: 'document',
  id: '01M84T2AZS9C8TZ6EGZG2RXYH5',
  project_id: '01M84T2AZS9C8TZ6EGZG2RXYH3',
  document_key: 'ssp',
  created_at: AT,
  created_by: 'u',
  generation: {
    id: 'g1',
    status: 'completed',
    options: { output: 'draft', draft_watermark: true, show_implementation_notes: false, show_assessor_notes: false },
    requested_by: 'u',
    requested_by_name: 'Ann',
    token_id: 't',
    requested_at: AT,
    approved_by: null,
    approved_by_name: null,
    approved_at: null,
    started_at: AT,
    finished_at: AT,
    error_code: null,
  },
  output: {
    s3_key: 'documents/x.pdf',
    generation_id: 'g1',
    output: 'draft',
    media_type: 'application/pdf',
    file_name: 'ssp.pdf',
    size: 10,
    sha256: 'abc',
    generated_at: AT,
    generated_by: 'u',
    generated_by_name: 'Ann',
    approved_by: null,
    approved_by_name: null,
    approved_at: null,
  },
  version: 2,
};

describe('a stored output row', () => {
  readsStoredEntity(toDocument, stored, { generation: { ...stored.generation, status: 'paused' } });
});

describe('a stored generation lease', () => {
  const now = new Date('2026-11-25T01:00:00.000Z');
  const write = takeLease('P1', { id: 'D1', generation: buildGeneration({ id: 'G1' }) } as Parameters<typeof takeLease>[1], now, 300);
  const stored = write.kind === 'put' ? write.item : { PK: '', SK: '' };

  it('reads the lease takeLease writes', () => {
    expect(asGenerationLease(stored)).toEqual({
      generation_id: 'G1',
      document_id: 'D1',
      taken_at: '2026-11-25T01:00:00.000Z',
      lease_until: '2026-11-25T01:05:00.000Z',
    });
  });

  it('is undefined when the project holds no lease', () => {
    expect(asGenerationLease(undefined)).toBeUndefined();
  });

  it('refuses a lease without its end, naming its key', () => {
    expect(() => asGenerationLease({ ...stored, lease_until: undefined })).toThrow(keys.generationLease('P1').SK);
  });
});
