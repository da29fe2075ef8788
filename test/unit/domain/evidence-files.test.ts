import { describe, expect, it } from 'vitest';
import { MAX_CONTENT_BYTES, type StoredEvidence } from '../../../lib/domain/evidence.js';
import { contentDisposition, readRefusal, titleFrom, UploadFields } from '../../../lib/domain/evidence-files.js';
import { buildEvidence, buildUploadEvidence } from '../../support/factories.js';

const placed = { id: '01JX0000000000000000000001', project_id: '01JX0000000000000000000002', control_id: '01JX0000000000000000000003' };
const base = (over: Partial<StoredEvidence>) => buildEvidence({ ...placed, kind: 'upload', ...over });

const file = (detected_type: string, size: number, file_status: StoredEvidence['file_status'] = 'ready') =>
  buildUploadEvidence({ ...placed, file_status, size, detected_type });

const url = '/api/v1/projects/01JX0000000000000000000002/controls/01JX0000000000000000000003/evidence/01JX0000000000000000000001';

describe('readRefusal', () => {
  it('lets a ready file a browser shows through both endpoints', () => {
    expect(readRefusal(file('application/pdf', 100), 'content')).toBeUndefined();
    expect(readRefusal(file('application/pdf', 100), 'download')).toBeUndefined();
  });

  it('is 404 for a pending and for a failed file', () => {
    expect(readRefusal(file('application/pdf', 100, 'quarantine'), 'download')).toEqual({ status: 404 });
    expect(readRefusal(file('application/pdf', 100, 'error'), 'content')).toEqual({ status: 404 });
  });

  it('calls a showable file above the content limit too large, with its download link', () => {
    expect(readRefusal(file('application/pdf', MAX_CONTENT_BYTES + 1), 'content')).toEqual({
      status: 409,
      code: 'evidence_content_too_large',
      links: { download: `${url}/download` },
    });
  });

  it('calls a type a browser does not show unsupported on the content endpoint, with its download link', () => {
    expect(readRefusal(file('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 10), 'content')).toEqual({
      status: 409,
      code: 'unsupported_content_representation',
      links: { download: `${url}/download` },
    });
  });

  it('gives references neither, and links to live sources content only', () => {
    expect(readRefusal(base({ kind: 'text_reference' }), 'content')).toMatchObject({ code: 'unsupported_content_representation', links: {} });
    const library = base({ kind: 'library_link', source: { kind: 'library', definition_id: 'd' } });
    expect(readRefusal(library, 'content')).toBeUndefined();
    expect(readRefusal(library, 'download')).toMatchObject({ code: 'unsupported_content_representation', links: { content: `${url}/content` } });
  });
});

describe('contentDisposition', () => {
  it('keeps a plain name as it is in both forms', () => {
    expect(contentDisposition('inline', 'report.pdf')).toBe(`inline; filename="report.pdf"; filename*=UTF-8''report.pdf`);
  });

  it('replaces what a quoted string cannot carry in the fallback, and percent-encodes it in filename*', () => {
    expect(contentDisposition('attachment', 'a"b%d\u00e9\u{1F600}.txt')).toBe(
      `attachment; filename="a_b_d__.txt"; filename*=UTF-8''a%22b%25d%C3%A9%F0%9F%98%80.txt`,
    );
  });

  it("drops a path, and names a file that has no name 'evidence'", () => {
    expect(contentDisposition('attachment', 'C:\\Users\\x\\evil.pdf')).toBe(`attachment; filename="evil.pdf"; filename*=UTF-8''evil.pdf`);
    expect(contentDisposition('attachment', 'dir/')).toBe(`attachment; filename="evidence"; filename*=UTF-8''evidence`);
  });

  it('encodes the characters encodeURIComponent leaves that RFC 8187 does not allow', () => {
    expect(contentDisposition('inline', "it's (1)*.txt")).toContain(`filename*=UTF-8''it%27s%20%281%29%2A.txt`);
  });
});

describe('titleFrom', () => {
  it('takes the file name, cut to 200 characters', () => {
    expect(titleFrom('  scan.pdf ')).toBe('scan.pdf');
    expect([...titleFrom(`${'é'.repeat(250)}.pdf`)]).toHaveLength(200);
  });

  it('refuses a file without a name (422 at /title)', () => {
    expect(() => titleFrom('   ')).toThrow(expect.objectContaining({ status: 422 }));
  });
});

describe('UploadFields', () => {
  it('reads a blank description as null, and keeps one with text', () => {
    expect(UploadFields().description.parse(' \n')).toBeNull();
    expect(UploadFields().description.parse('Quarterly.')).toBe('Quarterly.');
  });
});
