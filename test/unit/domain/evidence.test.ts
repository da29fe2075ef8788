import { describe, expect, it } from 'vitest';
import { captureEvidence } from '../../../lib/domain/evidence-capture.js';
import { CreateEvidenceReference, MAX_CONTENT_BYTES, metadataErrors, metadataOf, representationOf } from '../../../lib/domain/evidence.js';

describe('representationOf', () => {
  it('offers content and download for a ready file a browser shows, within the content limit', () => {
    expect(representationOf('upload', 'ready', { detected_type: 'application/pdf', size: 1000 })).toBe('content_and_download');
  });

  it('offers only a download for a file a browser would not show, or one over the content limit', () => {
    expect(representationOf('upload', 'ready', { detected_type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', size: 10 })).toBe(
      'download_endpoint',
    );
    expect(representationOf('file_link', 'ready', { detected_type: 'image/png', size: MAX_CONTENT_BYTES + 1 })).toBe('download_endpoint');
  });

  it('offers nothing for a file still processing or refused', () => {
    expect(representationOf('upload', 'pending', { detected_type: null, size: 10 })).toBe('unavailable');
    expect(representationOf('upload', 'error', { detected_type: 'image/png', size: 10 })).toBe('unavailable');
  });

  it('keeps references inline or external and reads live sources through the content endpoint', () => {
    expect(representationOf('text_reference', 'ready')).toBe('inline');
    expect(representationOf('external_reference', 'ready')).toBe('external_access');
    expect(representationOf('register_link', 'ready')).toBe('content_endpoint');
    expect(representationOf('library_link', 'ready')).toBe('content_endpoint');
    expect(representationOf('repository_link', 'ready')).toBe('content_and_download');
  });
});

describe('metadataErrors', () => {
  it('refuses a review date before the collection date', () => {
    const m = metadataOf({ title: 'T', collected_on: '2026-11-02', review_due: '2026-11-01' });
    expect(metadataErrors(m, 'text_reference').map((e) => e.code)).toContain('review_due_before_collected_on');
  });

  it('accepts a review date on the collection date', () => {
    const m = metadataOf({ title: 'T', description: 'text', collected_on: '2026-11-02', review_due: '2026-11-02' });
    expect(metadataErrors(m, 'text_reference')).toEqual([]);
  });
});

describe('CreateEvidenceReference', () => {
  it('takes http and https references and identifiers without a scheme', () => {
    for (const ref of ['https://x.test/a', 'http://x.test', 'DOC-42 rev 3']) {
      expect(CreateEvidenceReference().safeParse({ kind: 'external_reference', title: 'T', external_reference: ref }).success).toBe(true);
    }
  });

  it('refuses other schemes and control characters', () => {
    for (const ref of ['javascript:alert(1)', 'file:///etc/passwd', 'data:text/html,x', 'https://x.test/\u202e']) {
      expect(CreateEvidenceReference().safeParse({ kind: 'external_reference', title: 'T', external_reference: ref }).success, ref).toBe(false);
    }
  });
});

describe('captureEvidence', () => {
  const item = (kind: string, status: string, sha256: string | null = null) => ({ id: `${kind}-${status}`, kind, title: null, status, version: 3, sha256 });

  it('pins ready files by digest and text references as they are', () => {
    const capture = captureEvidence([item('upload', 'ready', 'a'.repeat(64)), item('text_reference', 'ready')]);
    expect(capture.versions).toEqual([
      { evidence_id: 'upload-ready', version: 3, sha256: 'a'.repeat(64) },
      { evidence_id: 'text_reference-ready', version: 3, sha256: null },
    ]);
    expect(capture.warnings).toEqual([]);
  });

  it('warns about processing files, external references and live sources', () => {
    const capture = captureEvidence([item('upload', 'pending'), item('external_reference', 'ready'), item('register_link', 'ready')]);
    expect(capture.versions).toEqual([]);
    expect(capture.warnings.map((w) => w.reason)).toEqual(['not_ready', 'unverified', 'live_source']);
  });
});
