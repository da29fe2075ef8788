import { describe, expect, it } from 'vitest';
import { StoredItemInvalid } from '../../../lib/store/entity.js';
import { createArtefactsWrites, toArtefact } from '../../../lib/store/provider-artefacts.js';
import { buildArtefact } from '../../support/factories.js';
import { firstPut } from '../../support/writes.js';

const artefact = buildArtefact({ provider_id: 'P' });

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
    expect(() => toArtefact(item)).toThrow(`PROVIDER#P|ARTEFACT#${artefact.id}`);
  });
});
