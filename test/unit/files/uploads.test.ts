import { describe, expect, it } from 'vitest';
import { reusableRelease, type UploadRecord } from '../../../lib/files/uploads.js';

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
