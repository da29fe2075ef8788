import { describe, expect, it } from 'vitest';
import { fileHeaders } from '../../../lib/http/file-headers.js';

const bytes = Buffer.from('x');

describe('fileHeaders', () => {
  it('sandboxes every file answer, inline or attachment', () => {
    expect(fileHeaders({ contentType: 'image/png', bytes })['Content-Security-Policy']).toBe('sandbox');
    expect(fileHeaders({ contentType: 'text/csv', disposition: 'attachment; filename="a.csv"', bytes })['Content-Security-Policy']).toBe('sandbox');
  });

  it('answers a PDF asked for inline as an attachment, under the same name', () => {
    const headers = fileHeaders({ contentType: 'application/pdf', disposition: `inline; filename="a.pdf"; filename*=UTF-8''a.pdf`, bytes });
    expect(headers['Content-Disposition']).toBe(`attachment; filename="a.pdf"; filename*=UTF-8''a.pdf`);
  });

  it('answers a PDF with no disposition as an attachment', () => {
    expect(fileHeaders({ contentType: 'Application/PDF', bytes })['Content-Disposition']).toBe('attachment');
  });

  it('keeps images and text inline, private and never cached', () => {
    const headers = fileHeaders({ contentType: 'text/plain; charset=utf-8', disposition: 'inline; filename="a.txt"', bytes });
    expect(headers).toMatchObject({ 'Content-Disposition': 'inline; filename="a.txt"', 'Cache-Control': 'private, no-store' });
    expect(fileHeaders({ contentType: 'image/webp', bytes })['Content-Disposition']).toBe('inline');
  });
});
