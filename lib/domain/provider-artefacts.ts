import * as z from 'zod';
import { ImportRunView } from './imports/run.js';
import { Ulid } from './ids.js';
import type { Permission } from './permissions.js';
import { apiUrl } from './api-paths.js';
import { filledLine, once, singleLine } from './validation.js';

/**
 * Artefacts of a shared external provider: links (stored only, never fetched) and files (through
 * the scan pipeline), optionally part of one assurance release. Restricted ones follow the seed's
 * restricted rules: upload needs upload-restricted-provider-artefacts, every later read
 * view-restricted-provider-artefacts.
 */

/** Seed, Limits: a provider bulk upload takes 1 to 25 files. */
export const BULK_UPLOAD_MAX_FILES = 25;

export const ARTEFACT_KINDS = ['link', 'file'] as const;
/** `stored`: a link (never fetched); files are `pending` in quarantine, then `ready` or `error`. */
export const ARTEFACT_STATUSES = ['stored', 'pending', 'ready', 'error'] as const;

export const ArtefactName = once(() => filledLine(200));
export const ArtefactUrl = once(() =>
  singleLine()
    .max(2048)
    .refine((v) => /^https?:$/.test(URL.parse(v)?.protocol ?? ''), 'must be an http or https URL')
    .meta({ description: 'An http or https URL; stored only, never fetched.' }),
);

export const ProviderArtefact = once(() =>
  z
    .object({
      id: z.string(),
      provider_id: z.string(),
      release_id: z.string().nullable(),
      kind: z.enum(ARTEFACT_KINDS),
      name: z.string(),
      url: z.string().nullable().meta({ description: 'The link of a link artefact; null for files.' }),
      restricted: z.boolean(),
      ism_version_id: z
        .string()
        .nullable()
        .meta({ description: 'The ISM release the artefact is judged against (its release’s, or the one it was created with).' }),
      status: z.enum(ARTEFACT_STATUSES),
      error_code: z.string().nullable(),
      file_name: z.string().nullable(),
      size: z.number().int().nullable(),
      sha256: z.string().nullable(),
      detected_type: z.string().nullable(),
      file_url: z
        .string()
        .nullable()
        .meta({ description: 'The protected download path (this API, same credential rules) once the file is ready; null otherwise.' }),
      created_at: z.string(),
      updated_at: z.string(),
    })
    .meta({ id: 'ProviderArtefact' }),
);
export type ProviderArtefact = z.infer<ReturnType<typeof ProviderArtefact>>;

/** Artefact detail: the artefact and its current import run (null before the first), which an import's 202 says to poll. */
export const ArtefactDetail = once(() => ProviderArtefact().extend({ import: ImportRunView().nullable() }).meta({ id: 'ProviderArtefactDetail' }));
export type ArtefactDetail = z.infer<ReturnType<typeof ArtefactDetail>>;

/** What an upload-only caller (restricted upload without restricted view) gets back: no content, no ETag, no later reads. */
export const ArtefactReceipt = once(() =>
  z.object({ id: z.string(), restricted: z.literal(true), received: z.literal(true) }).meta({
    id: 'ProviderArtefactReceipt',
    description: 'Minimal receipt of a restricted artefact created by a credential that cannot view restricted artefacts.',
  }),
);
export type ArtefactReceipt = z.infer<ReturnType<typeof ArtefactReceipt>>;

export const ArtefactAnswer = once(() => z.union([ProviderArtefact(), ArtefactReceipt()]));
export type ArtefactAnswer = z.infer<ReturnType<typeof ArtefactAnswer>>;

/**
 * The stored artefact: the view's fields plus what the scan pipeline mirrors (upload_id,
 * file_status, s3_key of the released file once ready) and the concurrency `version` the mirror moves.
 */
export interface StoredArtefact {
  id: string;
  provider_id: string;
  release_id: string | null;
  kind: (typeof ARTEFACT_KINDS)[number];
  name: string;
  url: string | null;
  restricted: boolean;
  ism_version_id: string | null;
  upload_id: string | null;
  file_status: 'quarantine' | 'ready' | 'error' | null;
  error_code: string | null;
  file_name: string | null;
  size: number | null;
  sha256: string | null;
  detected_type: string | null;
  s3_key: string | null;
  created_at: string;
  updated_at: string;
  created_by: string;
  version: number;
}

export const canViewRestricted = (permissions: ReadonlySet<Permission>) => permissions.has('view-restricted-provider-artefacts');
export const canUploadRestricted = (permissions: ReadonlySet<Permission>) => permissions.has('upload-restricted-provider-artefacts');

export const artefactFileUrl = (a: Pick<StoredArtefact, 'provider_id' | 'id'>) =>
  apiUrl('/external-providers/{provider}/artefacts/{artefact}/file', { provider: a.provider_id, artefact: a.id });

export function artefactStatus(a: Pick<StoredArtefact, 'kind' | 'file_status'>): ProviderArtefact['status'] {
  if (a.kind === 'link') return 'stored';
  return a.file_status === 'quarantine' || !a.file_status ? 'pending' : a.file_status;
}

export function artefactView(a: StoredArtefact): ProviderArtefact {
  const status = artefactStatus(a);
  return {
    id: a.id,
    provider_id: a.provider_id,
    release_id: a.release_id,
    kind: a.kind,
    name: a.name,
    url: a.url,
    restricted: a.restricted,
    ism_version_id: a.ism_version_id,
    status,
    error_code: status === 'error' ? a.error_code : null,
    file_name: a.file_name,
    size: a.size,
    sha256: a.sha256,
    detected_type: status === 'ready' ? a.detected_type : null,
    file_url: status === 'ready' ? artefactFileUrl(a) : null,
    created_at: a.created_at,
    updated_at: a.updated_at,
  };
}

export const artefactReceipt = (id: string): ArtefactReceipt => ({ id, restricted: true, received: true });

/** What a caller sees of an artefact it just created: all of it, or a minimal receipt of a restricted one it may not view. */
export const createdView = (a: StoredArtefact, permissions: ReadonlySet<Permission>): ArtefactAnswer =>
  a.restricted && !canViewRestricted(permissions) ? artefactReceipt(a.id) : artefactView(a);

/** Form booleans arrive as text. */
const FormBoolean = once(() => z.enum(['true', 'false']).transform((v) => v === 'true'));

/** The form fields beside the file (or the link) of createProviderArtefact. */
export const ArtefactFields = once(() => ({
  url: ArtefactUrl().optional(),
  name: ArtefactName().optional(),
  restricted: FormBoolean().optional(),
  release_id: Ulid.optional().meta({ description: 'A draft assurance release of this provider the artefact belongs to.' }),
  ism_version_id: Ulid.optional().meta({ description: 'The ISM release the artefact names (defaults to its release’s).' }),
}));

export const BulkUpload = once(() =>
  z
    .strictObject({
      files: z
        .array(
          z.strictObject({
            upload_session: Ulid.meta({ description: 'An upload session of this provider holding the file.' }),
            name: ArtefactName().optional(),
            restricted: z.boolean().optional(),
          }),
        )
        .min(1)
        .max(BULK_UPLOAD_MAX_FILES)
        .refine((files) => new Set(files.map((f) => f.upload_session)).size === files.length, 'each upload session is named once'),
    })
    .meta({ id: 'BulkReleaseArtefactUpload', description: `1 to ${BULK_UPLOAD_MAX_FILES} files, each through an upload session of at most 50 MiB.` }),
);
export type BulkUpload = z.output<ReturnType<typeof BulkUpload>>;
