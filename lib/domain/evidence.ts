import * as z from 'zod';
import type { FieldError } from '../errors.js';
import { CLASSIFICATION_CODES } from './classifications.js';
import { changesSomething } from './patch.js';
import { apiUrl } from './api-paths.js';
import { filledLine, filledText, multiLine, once } from './validation.js';

/**
 * Evidence items of a control (seed, Named resources: Evidence item; issue 12). Each item is its
 * own resource with its own version and ETag; the control lists them. Pure rules: kinds, metadata,
 * what a client may patch, and how the content of each kind is represented.
 */
export const EVIDENCE_KINDS = ['upload', 'external_reference', 'text_reference', 'file_link', 'register_link', 'library_link', 'repository_link'] as const;
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];

/** Seed: file status values; references and links to live sources are ready when recorded. */
export const EVIDENCE_STATUSES = ['pending', 'ready', 'error'] as const;
export type EvidenceStatus = (typeof EVIDENCE_STATUSES)[number];

export const CONTENT_REPRESENTATIONS = ['inline', 'external_access', 'content_endpoint', 'download_endpoint', 'content_and_download', 'unavailable'] as const;
export type ContentRepresentation = (typeof CONTENT_REPRESENTATIONS)[number];

/**
 * Every item of a control is captured in the transition's one transaction, with the control, its
 * checks and the audit record; DynamoDB takes 100 items a transaction, so a control holds at most this many.
 */
export const MAX_EVIDENCE_PER_CONTROL = 50;

/** File types a browser shows without running anything: what the content endpoint answers inline. */
export const INLINE_TYPES = ['application/pdf', 'image/png', 'image/jpeg', 'image/webp', 'image/gif', 'text/plain', 'text/csv', 'application/json'] as const;
/** Above this the content endpoint refuses (evidence_content_too_large) and points at the download. */
export const MAX_CONTENT_BYTES = 5 * 1024 * 1024;

const IsoDate = once(() => z.iso.date().meta({ description: 'YYYY-MM-DD' }));

/**
 * http(s) only when a scheme is given: a reference is shown to people as a link, never fetched
 * (seed, Evidence rule 3). A pattern, so that the document states it; leading white space is
 * allowed for, so that it says the same of the value as sent and as trimmed.
 */
const SCHEME_ONLY_HTTP = /^(?!\s*[A-Za-z][A-Za-z0-9+.-]*:)|^\s*[Hh][Tt][Tt][Pp][Ss]?:\/\//;
const ExternalReference = once(() => filledLine(2048).regex(SCHEME_ONLY_HTTP, 'a URL must use http or https'));

/** The metadata field names, listed so that reading them builds no schema (MetadataFields has exactly these). */
export const METADATA_KEYS = [
  'title',
  'description',
  'evidence_type',
  'classification',
  'source_system',
  'external_reference',
  'external_access_instructions',
  'collected_on',
  'review_due',
] as const;

/** The metadata every kind carries (seed, Named resources: Evidence item), each optional and nullable. */
export const MetadataFields = once(
  () =>
    ({
      title: filledLine(200),
      description: multiLine().max(5000).nullable(),
      evidence_type: filledLine(100).nullable().meta({ description: 'A category of the assessor’s choosing, such as configuration export or screenshot.' }),
      classification: z.enum(CLASSIFICATION_CODES).nullable(),
      source_system: filledLine(200).nullable(),
      external_reference: ExternalReference().nullable().meta({ description: 'A URL or document identifier; stored only, never fetched.' }),
      external_access_instructions: multiLine().max(2000).nullable(),
      collected_on: IsoDate().nullable(),
      review_due: IsoDate().nullable().meta({ description: 'Not before collected_on.' }),
    }) as const satisfies Record<(typeof METADATA_KEYS)[number], z.ZodType>,
);

export type EvidenceMetadata = { title: string } & {
  [K in Exclude<keyof ReturnType<typeof MetadataFields>, 'title'>]: z.output<ReturnType<typeof MetadataFields>[K]>;
};

/** Every metadata field, each optional: what creates and merge patches may name. */
export const OptionalMetadata = once(() => z.object(MetadataFields()).partial().shape);

/** Merge patch of an item's metadata: nothing else is writable (status, sources, provenance and files are the server's). */
export const UpdateEvidence = once(() =>
  z
    .strictObject(OptionalMetadata())
    .apply(changesSomething, 'metadata field')
    .meta({ id: 'UpdateEvidence', description: 'JSON merge patch of the metadata: omitted fields are kept, null clears one (title cannot be cleared).' }),
);
export type UpdateEvidence = z.output<ReturnType<typeof UpdateEvidence>>;

/** POST …/evidence/references: an external reference (stored, never fetched) or a text reference (its text in description). */
export const CreateEvidenceReference = once(() =>
  z
    .discriminatedUnion('kind', [
      z.strictObject({ ...OptionalMetadata(), kind: z.literal('external_reference'), title: MetadataFields().title, external_reference: ExternalReference() }),
      z.strictObject({
        ...OptionalMetadata(),
        kind: z.literal('text_reference'),
        title: MetadataFields().title,
        description: filledText(5000).meta({ description: 'The referenced text, pinned as it is when the control is assessed.' }),
      }),
    ])
    .meta({ id: 'CreateEvidenceReference' }),
);
export type CreateEvidenceReference = z.output<ReturnType<typeof CreateEvidenceReference>>;

/** The metadata of a new item: every field present, absent ones null. */
export function metadataOf(input: Partial<EvidenceMetadata> & { title: string }): EvidenceMetadata {
  return {
    title: input.title,
    description: input.description ?? null,
    evidence_type: input.evidence_type ?? null,
    classification: input.classification ?? null,
    source_system: input.source_system ?? null,
    external_reference: input.external_reference ?? null,
    external_access_instructions: input.external_access_instructions ?? null,
    collected_on: input.collected_on ?? null,
    review_due: input.review_due ?? null,
  };
}

/** Rules over the metadata as it stands after a create or patch (the merged result, as the library checks its dates). */
export function metadataErrors(m: EvidenceMetadata, kind: EvidenceKind): FieldError[] {
  const errors: FieldError[] = [];
  if (m.collected_on && m.review_due && m.review_due < m.collected_on) {
    errors.push({ pointer: '/review_due', code: 'review_due_before_collected_on', detail: 'must not fall before collected_on' });
  }
  if (kind === 'external_reference' && !m.external_reference) {
    errors.push({ pointer: '/external_reference', code: 'required', detail: 'an external reference names what it refers to' });
  }
  if (kind === 'text_reference' && !m.description?.trim()) {
    errors.push({ pointer: '/description', code: 'required', detail: 'a text reference carries its text' });
  }
  return errors;
}

export type EvidenceSource =
  | { kind: 'file'; control_id: string; evidence_id: string }
  | { kind: 'register'; definition_id: string }
  | { kind: 'library'; definition_id: string }
  | { kind: 'repository'; connection_id: string; path: string; ref: string };

export interface StoredEvidence extends EvidenceMetadata {
  id: string;
  project_id: string;
  control_id: string;
  kind: EvidenceKind;
  /** Of kinds without a file of their own; an upload's status is its file's (file_status, mirrored by the scan pipeline). */
  status: EvidenceStatus;
  version: number;
  /** Uploads and file links: the upload record the scan pipeline mirrors into this item (as into a logo or a diagram). */
  upload_id?: string;
  file_status?: 'quarantine' | 'ready' | 'error';
  error_code?: string | null;
  file_name?: string;
  size?: number;
  sha256?: string;
  detected_type?: string | null;
  s3_key?: string;
  source: EvidenceSource | null;
  /** The item this one replaced (replaceEvidence). */
  replaces?: string;
  created_at: string;
  created_by: string;
  updated_at: string;
  updated_by: string;
}

/** What makes two links the same link: the source, whatever the metadata. */
export function sourceIdentity(source: EvidenceSource): string {
  switch (source.kind) {
    case 'file':
      return JSON.stringify([source.kind, source.control_id, source.evidence_id]);
    case 'register':
    case 'library':
      return JSON.stringify([source.kind, source.definition_id]);
    case 'repository':
      return JSON.stringify([source.kind, source.connection_id, source.path, source.ref]);
  }
}

const FILE_STATUS = { quarantine: 'pending', ready: 'ready', error: 'error' } as const;

/** An upload's or a file link's status is its file's, as the scan pipeline mirrors it; every other kind keeps its own. */
export const statusOf = (e: StoredEvidence): EvidenceStatus => (e.file_status ? FILE_STATUS[e.file_status] : e.status);

/** The file of an uploaded item, or of the ready file a link points at, as the scan pipeline left it. */
export interface EvidenceFile {
  upload_id: string;
  file_name: string;
  size: number;
  sha256: string;
  detected_type: string | null;
  s3_key: string;
  error_code: string | null;
}

/**
 * How a client reads an item's content (seed: links.content and links.download appear only as
 * content_representation implies). Files that a browser can show and that are small enough have
 * both; other files only a download; unreleased files neither.
 */
export function representationOf(
  kind: EvidenceKind,
  status: EvidenceStatus,
  file?: Pick<EvidenceFile, 'detected_type' | 'size'> | null,
): ContentRepresentation {
  if (status !== 'ready') return 'unavailable';
  switch (kind) {
    case 'external_reference':
      return 'external_access';
    case 'text_reference':
      return 'inline';
    case 'register_link':
    case 'library_link':
      return 'content_endpoint';
    case 'repository_link':
      return 'content_and_download';
    default:
      if (!file) return 'unavailable';
      return showsInline(file) ? 'content_and_download' : 'download_endpoint';
  }
}

export const showsInline = (file: Pick<EvidenceFile, 'detected_type' | 'size'>) =>
  (INLINE_TYPES as readonly string[]).includes(file.detected_type ?? '') && file.size <= MAX_CONTENT_BYTES;

export const hasContent = (r: ContentRepresentation) => r === 'content_endpoint' || r === 'content_and_download';
export const hasDownload = (r: ContentRepresentation) => r === 'download_endpoint' || r === 'content_and_download';

/** The metadata as every item holds it (the view shows it, the store reads it). */
export const Metadata = once(() => ({
  title: z.string(),
  description: z.string().nullable(),
  evidence_type: z.string().nullable(),
  classification: z.enum(CLASSIFICATION_CODES).nullable(),
  source_system: z.string().nullable(),
  external_reference: z.string().nullable(),
  external_access_instructions: z.string().nullable(),
  collected_on: z.string().nullable(),
  review_due: z.string().nullable(),
}));

const Source = once(() =>
  z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('file'), control_id: z.string(), evidence_id: z.string() }),
    z.object({ kind: z.literal('register'), definition_id: z.string() }),
    z.object({ kind: z.literal('library'), definition_id: z.string() }),
    z.object({ kind: z.literal('repository'), connection_id: z.string(), path: z.string(), ref: z.string() }),
  ]),
);

export const EvidenceView = once(() =>
  z
    .object({
      id: z.string(),
      control_id: z.string(),
      kind: z.enum(EVIDENCE_KINDS),
      ...Metadata(),
      status: z.enum(EVIDENCE_STATUSES),
      processing: z.boolean().meta({ description: 'true while the file is being scanned; cancel-processing stops it.' }),
      error: z.string().nullable().meta({ description: 'A safe reason code when status is error.' }),
      file: z
        .object({ file_name: z.string(), size: z.number().int(), content_type: z.string().nullable(), sha256: z.string() })
        .nullable()
        .meta({ description: 'The file of an upload or of the file a link points at.' }),
      source: Source().nullable().meta({ description: 'What a link points at.' }),
      replaces: z
        .string()
        .nullable()
        .meta({ description: 'The item this one replaced: after a lost replacement response (the old item answers 404), find the new item by it.' }),
      content_representation: z.enum(CONTENT_REPRESENTATIONS),
      links: z.object({ content: z.string().optional(), download: z.string().optional() }),
      etag: z.string().meta({ description: 'The item ETag: If-Match of its PATCH, replacement, delete and cancel-processing.' }),
      created_at: z.string(),
      created_by: z.string(),
      updated_at: z.string(),
      updated_by: z.string(),
    })
    .meta({ id: 'EvidenceItem' }),
);
export type EvidenceView = z.output<ReturnType<typeof EvidenceView>>;

export const evidenceUrl = (e: Pick<StoredEvidence, 'project_id' | 'control_id' | 'id'>) =>
  apiUrl('/projects/{project}/controls/{control}/evidence/{evidence}', { project: e.project_id, control: e.control_id, evidence: e.id });

/** The file facts of an upload or a file link (a link copies its ready source's when it is made). */
export function fileOf(e: StoredEvidence): EvidenceFile | null {
  if (e.kind !== 'upload' && e.kind !== 'file_link') return null;
  if (!e.upload_id || !e.sha256 || e.s3_key === undefined || e.file_name === undefined || e.size === undefined) return null;
  return {
    upload_id: e.upload_id,
    file_name: e.file_name,
    size: e.size,
    sha256: e.sha256,
    detected_type: e.detected_type ?? null,
    s3_key: e.s3_key,
    error_code: e.error_code ?? null,
  };
}

/** How the item's content is read, and where: links.content and links.download as its representation implies. */
export function evidenceLinks(e: StoredEvidence): { representation: ContentRepresentation; links: EvidenceView['links'] } {
  const representation = representationOf(e.kind, statusOf(e), fileOf(e));
  const url = evidenceUrl(e);
  return {
    representation,
    links: {
      ...(hasContent(representation) ? { content: `${url}/content` } : {}),
      ...(hasDownload(representation) ? { download: `${url}/download` } : {}),
    },
  };
}

export function evidenceView(e: StoredEvidence, etag: string): EvidenceView {
  const status = statusOf(e);
  const file = fileOf(e);
  const { representation, links } = evidenceLinks(e);
  return {
    id: e.id,
    control_id: e.control_id,
    kind: e.kind,
    ...metadataOf(e),
    status,
    processing: status === 'pending',
    error: status === 'error' ? (e.error_code ?? 'unavailable') : null,
    file: file ? { file_name: file.file_name, size: file.size, content_type: file.detected_type, sha256: file.sha256 } : null,
    source: e.source,
    replaces: e.replaces ?? null,
    content_representation: representation,
    links,
    etag,
    created_at: e.created_at,
    created_by: e.created_by,
    updated_at: e.updated_at,
    updated_by: e.updated_by,
  };
}
