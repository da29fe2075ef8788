import { validationFailed } from '../errors.js';
import { evidenceLinks, INLINE_TYPES, MAX_CONTENT_BYTES, MetadataFields, statusOf, fileOf, hasContent, hasDownload, type StoredEvidence } from './evidence.js';
import { multiLine, once } from './validation.js';

/**
 * Pure rules of uploaded evidence: the form fields beside the file, the title an upload takes
 * from its file, and what the content and download endpoints may answer for an item.
 */

/** A form cannot say null: a description that is blank (or empty) is the form's null and clears it. */
const FormDescription = once(() =>
  multiLine()
    .max(5000)
    .transform((v) => (v.trim() === '' ? null : v))
    .meta({ description: 'Blank clears it (a form cannot send null).' }),
);

/** uploadEvidence's fields beside the file: the metadata, each optional (absent is null); title defaults to the file name. */
export const UploadFields = once(() => ({
  title: MetadataFields().title.optional().meta({ description: 'Defaults to the file name.' }),
  description: FormDescription().optional(),
  evidence_type: MetadataFields().evidence_type.unwrap().optional(),
  classification: MetadataFields().classification.unwrap().optional(),
  source_system: MetadataFields().source_system.unwrap().optional(),
  external_reference: MetadataFields().external_reference.unwrap().optional(),
  external_access_instructions: MetadataFields().external_access_instructions.unwrap().optional(),
  collected_on: MetadataFields().collected_on.unwrap().optional(),
  review_due: MetadataFields().review_due.unwrap().optional(),
}));

/** replaceEvidence's one field beside the file: absent keeps the description, blank clears it. */
export const ReplacementFields = once(() => ({ description: FormDescription().optional() }));

const TITLE_MAX = 200;

/** The title of an upload sent without one: its file name, trimmed and cut to a title's length (422 when there is none). */
export function titleFrom(fileName: string): string {
  const title = [...fileName.trim()].slice(0, TITLE_MAX).join('').trim();
  if (!title) throw validationFailed([{ pointer: '/title', code: 'required', detail: 'the file has no name to take a title from; send a title' }]);
  return title;
}

/** A file name in a quoted string every client reads: printable ASCII without quotes, backslashes, slashes or percent signs. */
const asciiFallback = (name: string) => name.replace(/[^\x20-\x7e]|["\\/%]/gu, '_');

/** RFC 8187 attr-chars: what encodeURIComponent leaves alone, less the characters it keeps that are not attr-chars. */
const extValue = (name: string) => encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * Content-Disposition (RFC 6266): inline for the content endpoint, attachment for the download,
 * with the name as sent in filename* (RFC 8187) and a safe ASCII fallback for older clients.
 */
export function contentDisposition(kind: 'inline' | 'attachment', fileName: string): string {
  const base = fileName.replace(/^.*[\\/]/, '').trim() || 'evidence';
  return `${kind}; filename="${asciiFallback(base)}"; filename*=UTF-8''${extValue(base)}`;
}

export type Refusal =
  | { status: 404 }
  | { status: 409; code: 'unsupported_content_representation' | 'evidence_content_too_large'; links: { content?: string; download?: string } };

/**
 * Why the content (or download) endpoint cannot answer this item, or undefined when it can.
 * Pending and failed files are 404 (seed, Other lifecycles). What the representation does not
 * offer is 409 with the item's links (seed, Evidence rule 2): a file a browser could show but
 * too large for the content endpoint is evidence_content_too_large, anything else
 * unsupported_content_representation; references offer neither, so their links are empty.
 */
export function readRefusal(e: StoredEvidence, want: 'content' | 'download'): Refusal | undefined {
  if (statusOf(e) !== 'ready') return { status: 404 };
  const { representation, links } = evidenceLinks(e);
  if (want === 'content' ? hasContent(representation) : hasDownload(representation)) return undefined;
  const file = fileOf(e);
  const tooLarge = want === 'content' && file && (INLINE_TYPES as readonly string[]).includes(file.detected_type ?? '') && file.size > MAX_CONTENT_BYTES;
  return { status: 409, code: tooLarge ? 'evidence_content_too_large' : 'unsupported_content_representation', links };
}
