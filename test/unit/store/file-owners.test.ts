import { describe, expect, it } from 'vitest';
import { asFileOwner, asUploadShown } from '../../../lib/store/file-owners.js';
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

describe('an item that shows an upload', () => {
  const link = { ...keys.evidence('P', 'C', 'E'), upload_id: 'U1', file_status: 'ready', error_code: null, revision_key: keys.evidenceHead('P', 'C') };

  it('reads the upload it shows and the revision its parent shows', () => {
    expect(asUploadShown(link)).toMatchObject({ upload_id: 'U1', file_status: 'ready', revision_key: keys.evidenceHead('P', 'C') });
  });

  it('reads an item that shows no upload any more', () => {
    expect(asUploadShown({ ...keys.evidence('P', 'C', 'E'), kind: 'url' })?.upload_id).toBeUndefined();
  });

  it('refuses a revision key that is not a key, naming the item', () => {
    expect(() => asUploadShown({ ...link, revision_key: 'EVIDENCE#C' })).toThrow(`${link.PK}|${link.SK}`);
  });
});
