import { describe, expect, it } from 'vitest';
import { importRunSchema } from '../../../lib/store/imports.js';
import { parseStored } from '../../../lib/store/entity.js';
import type { Item } from '../../../lib/store/read.js';
import { keys } from '../../../lib/store/keys.js';
import { readsStoredEntity } from '../../support/stored-entities.js';

const stored = {
  ...keys.artefactImport('01M84T2AZS9C8TZ6EGZG2RXYHC', '01M84T2AZS9C8TZ6EGZG2RXYHD'),
  GSI1PK: 'RUNNINGIMPORTS',
  GSI1SK: '2026-01-01T00:00:00.000Z#p#a',
  entity: 'import-run',
  run_id: '01M84T2AZS9C8TZ6EGZG2RXYHE',
  provider_id: '01M84T2AZS9C8TZ6EGZG2RXYHC',
  release_id: '01M84T2AZS9C8TZ6EGZG2RXYHF',
  artefact_id: '01M84T2AZS9C8TZ6EGZG2RXYHD',
  ism_version_id: '01M84T2AZS9C8TZ6EGZG2RXYH4',
  kind: 'ccm',
  status: 'running',
  revision: 2,
  started_at: '2026-01-01T00:00:00.000Z',
  started_by: 'u',
  token_id: 't',
  finished_at: null,
  progress: { rows: 10, written: 5, exact: 4 },
  errors: [{ row: 3, reason: 'no control id' }],
  error_count: 1,
  error_code: null,
  error_detail: null,
  lease_until: '2026-01-01T00:05:00.000Z',
};

describe('a stored import run', () => {
  readsStoredEntity((item: Item) => parseStored(importRunSchema(), item), stored, { revision: undefined });

  it('refuses a run whose sweep bookkeeping the sweep could not judge, naming its key', () => {
    expect(() => parseStored(importRunSchema(), { ...stored, requeues: '2' })).toThrow(`${stored.PK}|${stored.SK}`);
  });
});
