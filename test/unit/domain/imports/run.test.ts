import { describe, expect, it } from 'vitest';
import { type ImportRun, ImportRunView, importRunView, newImportRun } from '../../../../lib/domain/imports/run.js';

const identity = {
  run_id: 'RUN',
  provider_id: 'V',
  release_id: 'R',
  artefact_id: 'A',
  ism_version_id: 'ISM',
  kind: 'ccm' as const,
  started_by: 'U',
  token_id: 'T',
};
const now = new Date('2026-11-22T10:00:00.000Z');

describe('newImportRun', () => {
  it('starts running at revision 1, with nothing read and no errors, attributed to its starter', () => {
    expect(newImportRun({ ...identity, now })).toEqual({
      ...identity,
      status: 'running',
      revision: 1,
      started_at: now.toISOString(),
      finished_at: null,
      progress: null,
      errors: [],
      error_count: 0,
      error_code: null,
      error_detail: null,
    });
  });
});

describe('importRunView', () => {
  const failed: ImportRun = {
    ...newImportRun({ ...identity, now }),
    status: 'failed',
    revision: 4,
    finished_at: '2026-11-22T10:01:00.000Z',
    progress: { rows: 3, written: 2, exact: 1 },
    errors: [{ row: 2, reason: 'responsibility: missing' }],
    error_count: 1,
    error_code: 'authorisation_lost',
    error_detail: 'the credential was revoked',
  };

  it('shows the run without its attribution, revision or what it reads', () => {
    expect(importRunView(failed)).toEqual({
      run_id: 'RUN',
      kind: 'ccm',
      status: 'failed',
      started_at: now.toISOString(),
      finished_at: '2026-11-22T10:01:00.000Z',
      progress: { rows: 3, written: 2, exact: 1 },
      errors: [{ row: 2, reason: 'responsibility: missing' }],
      error_count: 1,
      error_code: 'authorisation_lost',
      error_detail: 'the credential was revoked',
    });
  });

  it('answers what its published schema describes', () => {
    expect(ImportRunView().safeParse(importRunView(failed)).success).toBe(true);
  });
});
