import { describe, expect, it } from 'vitest';
import { ArtefactUrl, artefactView, BulkUpload, createdView, type StoredArtefact } from '../../../lib/domain/provider-artefacts.js';
import type { Permission } from '../../../lib/domain/permissions.js';
import { buildArtefact } from '../../support/factories.js';

const stored = (over: Partial<StoredArtefact> = {}) => buildArtefact({ id: '01J0000000000000000000000A', provider_id: '01J0000000000000000000000P', ...over });

describe('artefactView', () => {
  it('shows a file in quarantine as pending, without a file_url', () => {
    expect(artefactView(stored())).toMatchObject({ status: 'pending', file_url: null });
  });

  it('shows a ready file with its protected file_url and detected type', () => {
    const view = artefactView(stored({ file_status: 'ready', detected_type: 'text/csv' }));
    expect(view).toMatchObject({
      status: 'ready',
      detected_type: 'text/csv',
      file_url: '/api/v1/external-providers/01J0000000000000000000000P/artefacts/01J0000000000000000000000A/file',
    });
  });

  it('shows the error code of a refused file only', () => {
    expect(artefactView(stored({ file_status: 'error', error_code: 'malware_detected' })).error_code).toBe('malware_detected');
    expect(artefactView(stored({ file_status: 'ready', error_code: 'stale' })).error_code).toBeNull();
  });

  it('shows a link as stored', () => {
    expect(artefactView(stored({ kind: 'link', url: 'https://x.example', file_status: null })).status).toBe('stored');
  });
});

describe('createdView', () => {
  const uploadOnly = new Set<Permission>(['manage-org-hierarchy', 'upload-restricted-provider-artefacts']);
  it('answers a minimal receipt for a restricted artefact the caller cannot view', () => {
    expect(createdView(stored({ restricted: true }), uploadOnly)).toEqual({ id: '01J0000000000000000000000A', restricted: true, received: true });
  });

  it('answers the whole artefact when it is not restricted', () => {
    expect(createdView(stored(), uploadOnly)).toMatchObject({ name: 'ccm.xlsx' });
  });
});

describe('ArtefactUrl', () => {
  it.each(['https://x.example/a', 'http://x.example'])('takes %s', (url) => expect(ArtefactUrl().safeParse(url).success).toBe(true));
  it.each(['ftp://x.example', 'mailto:a@x.example', 'data:text/html,hi', '//x.example'])('refuses %s', (url) =>
    expect(ArtefactUrl().safeParse(url).success).toBe(false),
  );
});

describe('BulkUpload', () => {
  const session = (n: number) => ({ upload_session: `01J00000000000000000000${String(n).padStart(3, '0')}` });
  it('takes 1 to 25 files', () => {
    expect(BulkUpload().safeParse({ files: [session(1)] }).success).toBe(true);
    expect(BulkUpload().safeParse({ files: Array.from({ length: 25 }, (_, i) => session(i)) }).success).toBe(true);
    expect(BulkUpload().safeParse({ files: [] }).success).toBe(false);
    expect(BulkUpload().safeParse({ files: Array.from({ length: 26 }, (_, i) => session(i)) }).success).toBe(false);
  });

  it('refuses a session named twice', () => {
    expect(BulkUpload().safeParse({ files: [session(1), session(1)] }).success).toBe(false);
  });
});
