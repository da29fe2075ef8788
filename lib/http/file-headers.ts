import type { FileAnswer } from '../operations/kernel/operation.js';

/**
 * Types a browser shows inline but not in a sandboxed document: answered as attachments instead.
 * PDF: Safari shows an empty window for a PDF under `sandbox` and Firefox's viewer is refused in
 * sandboxed documents, while Chromium (156, checked) renders it all the same, its viewer outside
 * the sandbox, so the policy would not hold a PDF's scripts (/OpenAction) there either. Images,
 * plain text, JSON and Markdown show sandboxed as they do without it; CSV and Office files
 * download anyway.
 */
const ATTACHMENT_ONLY = new Set(['application/pdf']);

const mediaType = (contentType: string) => contentType.split(';')[0]!.trim().toLowerCase();

/** The disposition the answer asks for, as an attachment where its type may not be shown inline. */
function disposition(file: FileAnswer): string {
  const asked = file.disposition ?? 'inline';
  return ATTACHMENT_ONLY.has(mediaType(file.contentType)) ? asked.replace(/^inline\b/i, 'attachment') : asked;
}

/**
 * The headers of every file answer. Files are private to the caller and never cached (seed:
 * Cache-Control private, no-store). `sandbox` gives a file a browser opens a unique origin with no
 * scripts, forms, popups or plugins, so markup or script in it cannot act as the user; nosniff
 * (every response's, response-headers.ts) keeps the browser to the type given.
 */
export function fileHeaders(file: FileAnswer): Record<string, string> {
  return {
    ...file.headers,
    'Content-Type': file.contentType,
    'Cache-Control': 'private, no-store',
    'Content-Disposition': disposition(file),
    'Content-Security-Policy': 'sandbox',
  };
}
