import { describe, expect, it } from 'vitest';
import type { StoredArtefact } from '../../../lib/domain/provider-artefacts.js';
import { StoredItemInvalid } from '../../../lib/store/entity.js';
import { createArtefactsWrites, toArtefact } from '../../../lib/store/provider-artefacts.js';
import { firstPut } from '../../support/writes.js';

const artefact: StoredArtefact = {
  id: '01JD3Q5Z8X6Y7W2V9T4S3R2P1N',
  provider_id: 'P',
  release_id: null,
  kind: 'file',
  name: 'ccm.xlsx',
  url: null,
  restricted: false,
  ism_version_id: null,
  upload_id: 'UP',
  file_status: 'quarantine',
  error_code: null,
  file_name: 'ccm.xlsx',
  size: 1024,
  sha256: 'abc',
  detected_type: null,
  s3_key: null,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  created_by: 'U',
  version: 1,
};

const stored = () => firstPut(createArtefactsWrites('P', [artefact], undefined));

describe('stored provider artefacts', () => {
  it('reads an artefact as written', () => {
    expect(toArtefact(stored())).toEqual(artefact);
  });

  it('reads what the scan mirrors into a ready file', () => {
    const ready = { ...stored(), file_status: 'ready', s3_key: 'released/abc', detected_type: 'application/pdf', width: null, height: null };
    expect(toArtefact(ready)).toMatchObject({ file_status: 'ready', s3_key: 'released/abc', width: null });
  });

  it('refuses an artefact whose file status is not an upload status, naming its key', () => {
    const item = { ...stored(), file_status: 'scanning' };
    expect(() => toArtefact(item)).toThrow(StoredItemInvalid);
    expect(() => toArtefact(item)).toThrow(/PROVIDER#P\|ARTEFACT#01JD3Q5Z8X6Y7W2V9T4S3R2P1N/);
  });
});
