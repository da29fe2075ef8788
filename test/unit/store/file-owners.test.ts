import { describe, expect, it } from 'vitest';
import { asFileOwner } from '../../../lib/store/file-owners.js';
import { keys } from '../../../lib/store/keys.js';
import { buildFileOwner } from '../../support/factories.js';
import { readsStoredEntity } from '../../support/stored-entities.js';

const stored = { ...keys.projectDiagram('01M84T2AZS9C8TZ6EGZG2RXYH3'), entity: 'project-diagram', ...buildFileOwner() };

describe('a stored file owner', () => {
  readsStoredEntity(asFileOwner, stored, { file_status: 'pending' });

  it('reads an owner whose upload is still in quarantine, before its scan detected a type', () => {
    const quarantined = buildFileOwner({ file_status: 'quarantine', detected_type: null, width: null, height: null, s3_key: 'quarantine/U1' });
    expect(asFileOwner({ ...keys.organisationLogo('O1'), ...quarantined })).toEqual(quarantined);
  });

  it('is undefined where no file was uploaded', () => {
    expect(asFileOwner(undefined)).toBeUndefined();
  });

  it('refuses an owner without the version its ETag is made of', () => {
    const { version: _v, ...unversioned } = stored;
    expect(() => asFileOwner(unversioned)).toThrow(`${stored.PK}|${stored.SK}`);
  });
});
