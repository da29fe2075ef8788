import { describe, expect, it } from 'vitest';
import { toUpload } from '../../../lib/files/uploads.js';
import { keyString } from '../../../lib/store/read.js';
import { keys } from '../../../lib/store/keys.js';
import { readsStoredEntity } from '../../support/stored-entities.js';

const ORG = '01M84T2AZS9C8TZ6EGZG2RXYH0';
const stored = {
  ...keys.upload('01M84T2AZS9C8TZ6EGZG2RXYHG'),
  GSI1PK: 'SHA256#abc',
  GSI1SK: 'UPLOAD#01M84T2AZS9C8TZ6EGZG2RXYHG',
  entity: 'upload',
  id: '01M84T2AZS9C8TZ6EGZG2RXYHG',
  profile: 'organisation-logo',
  status: 'ready',
  error_code: null,
  s3_key: 'uploads/x',
  sha256: 'abc',
  size: 3,
  file_name: 'logo.png',
  declared_type: 'image/png',
  detected_type: 'image/png',
  width: 10,
  height: 10,
  organisation_id: ORG,
  project_id: null,
  provider_id: null,
  owner: keys.organisationLogo(ORG),
  uploaded_by: 'u',
  token_id: 't',
  authority: { scope: { kind: 'organisation', id: ORG }, permissions: ['manage-org-hierarchy'] },
  checks: { validation: 'passed', malware: 'clean' },
  reused_from: null,
  created_at: '2026-01-01T00:00:00.000Z',
  scanned_at: '2026-01-01T00:00:01.000Z',
};

describe('a stored upload', () => {
  readsStoredEntity(toUpload, stored, { checks: { validation: 'passed', malware: 'infected' } });

  it('reads without a provider when stored before provider artefacts', () => {
    const { provider_id: _p, ...older } = stored;
    expect(toUpload(older).provider_id).toBeUndefined();
  });

  it('reads the file links that mirror it as the set DynamoDB returns', () => {
    const mirror = keyString(keys.evidence('p', 'c', 'e'));
    expect(toUpload({ ...stored, mirrors: new Set([mirror]) }).mirrors).toEqual(new Set([mirror]));
  });
});
