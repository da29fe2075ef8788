import { beforeEach, describe, expect, it, vi } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { reusableRelease, scanWatchesBefore, scanWatchItem, toUpload, type UploadRecord } from '../../../lib/files/uploads.js';
import { logger } from '../../../lib/log.js';
import { resetDdbClient } from '../../../lib/store/client.js';
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

const next = {
  sha256: 'h',
  size: 10,
  profile: 'evidence',
  file_name: 'hosts.csv',
  declared_type: 'text/csv',
  uploaded_by: 'u',
  organisation_id: 'o',
  project_id: 'p',
} as const;

const released = (over: Partial<UploadRecord> = {}) => ({ id: 'r', status: 'ready', ...next, ...over }) as UploadRecord;

describe('reusableRelease', () => {
  it('reuses a released file of the same bytes, name, uploader, profile and project', () => {
    expect(reusableRelease([released()], next)?.id).toBe('r');
  });

  it('reuses text that claims the same type another way (the extension when the declared type says nothing)', () => {
    expect(reusableRelease([released()], { ...next, declared_type: 'application/octet-stream' })?.id).toBe('r');
  });

  it('does not reuse text claimed as another type: its detected type would differ', () => {
    expect(reusableRelease([released()], { ...next, declared_type: 'text/plain' })).toBeUndefined();
  });

  it('does not reuse across projects, uploaders or unreleased files', () => {
    expect(reusableRelease([released({ project_id: 'q' })], next)).toBeUndefined();
    expect(reusableRelease([released({ uploaded_by: 'v' })], next)).toBeUndefined();
    expect(reusableRelease([released({ status: 'error' })], next)).toBeUndefined();
  });
});

describe('scanWatchesBefore', () => {
  const ddb = mockClient(DynamoDBDocumentClient);
  beforeEach(() => {
    ddb.reset();
    resetDdbClient();
  });
  const watch = { ...scanWatchItem({ id: 'U1', created_at: '2026-11-22T10:00:00.000Z' }), requeues: 1 };

  it('reads each watch with its index position, which the sweep moves it from', async () => {
    ddb.on(QueryCommand).resolves({ Items: [watch] });
    expect(await scanWatchesBefore('2026-11-22T11:00:00.000Z')).toEqual([{ upload_id: 'U1', position: '2026-11-22T10:00:00.000Z#U1', requeues: 1 }]);
  });

  it('skips a watch without its upload, logging its key, and reads the others', async () => {
    const errors = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const { upload_id: _u, ...unnamed } = watch;
    const other = { ...scanWatchItem({ id: 'U2', created_at: '2026-11-22T10:01:00.000Z' }) };
    ddb.on(QueryCommand).resolves({ Items: [unnamed, other] });
    expect((await scanWatchesBefore('2026-11-22T11:00:00.000Z')).map((w) => w.upload_id)).toEqual(['U2']);
    expect(errors).toHaveBeenCalledWith('skipped a malformed scan watch', expect.objectContaining({ key: keyString(keys.uploadScan('U1')) }));
    errors.mockRestore();
  });
});
