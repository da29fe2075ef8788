/**
 * Validation profiles: what an upload for a given purpose may be. The scan worker enforces them by
 * the detected type (magic bytes, or the text rule of inspect.ts for types that have none), the
 * size and, for images, the pixel dimensions.
 */
export interface ValidationProfile {
  id: string;
  maxBytes: number;
  /** Detected MIME types accepted. */
  types: readonly string[];
  /** Those of `types` that have no magic bytes: accepted by the text rule (inspect.ts) when the uploader claims one. */
  text?: readonly TextType[];
  image?: { minSide: number; maxSide: number };
}

export const TEXT_TYPES = ['text/plain', 'text/csv', 'application/json'] as const;
export type TextType = (typeof TEXT_TYPES)[number];

/** What the uploader said the file is: the part's media type, and its name. */
export interface Claim {
  declaredType: string;
  fileName: string;
}

const BY_EXTENSION = new Map<string, TextType>([
  ['txt', 'text/plain'],
  ['log', 'text/plain'],
  ['csv', 'text/csv'],
  ['json', 'application/json'],
]);
const GENERIC = new Set(['', 'application/octet-stream']);

/**
 * The text type the uploader claims, if the profile takes it: the declared media type when it
 * names one, else, when the declared type says nothing (upload sessions never carry one), the
 * file name's extension. A file declared as anything else claims no text type.
 */
export function claimedTextType(profile: ValidationProfile, claim: Claim): TextType | undefined {
  if (!profile.text) return undefined;
  const declared = claim.declaredType.split(';')[0]!.trim().toLowerCase();
  const dot = claim.fileName.lastIndexOf('.');
  const named = GENERIC.has(declared) ? (dot < 0 ? undefined : BY_EXTENSION.get(claim.fileName.slice(dot + 1).toLowerCase())) : declared;
  return profile.text.find((t) => t === named);
}

const MiB = 1024 * 1024;

export const PROFILES = {
  'organisation-logo': {
    id: 'organisation-logo',
    maxBytes: 5 * MiB,
    types: ['image/png', 'image/jpeg', 'image/webp'],
    image: { minSide: 16, maxSide: 4096 },
  },
  'network-diagram': {
    id: 'network-diagram',
    maxBytes: 10 * MiB,
    types: ['image/png', 'image/jpeg', 'image/webp'],
    image: { minSide: 16, maxSide: 16384 },
  },
  /** Seed, Limits: an evidence replacement file is at most 20 MiB; first uploads take the same. */
  evidence: {
    id: 'evidence',
    maxBytes: 20 * MiB,
    types: [
      // Reports, certificates and exports as most tools print them; browsers show them inline.
      'application/pdf',
      // Screenshots and photographs of consoles, settings and premises. SVG is left out: it can carry script.
      'image/png',
      'image/jpeg',
      'image/webp',
      'image/gif',
      // Policies, settings spreadsheets and briefings as organisations keep them. file-type names a
      // zip by the main part its [Content_Types].xml declares, so the macro-enabled variants
      // (docm, xlsm, pptm) come out as types of their own and are refused with every other zip.
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      'application/vnd.openxmlformats-officedocument.presentationml.presentation',
      // Logs and configuration dumps, query results and exports, API and configuration exports.
      ...TEXT_TYPES,
    ],
    text: TEXT_TYPES,
  },
  /**
   * Seed, Limits: a provider bulk upload takes files of at most 50 MiB. Assessment reports (PDF),
   * Cloud Controls Matrices (XLSX above all, or CSV), documents and exports; macro-enabled Office
   * files come out as types of their own (see evidence) and are refused.
   */
  'provider-artefact': {
    id: 'provider-artefact',
    maxBytes: 50 * MiB,
    types: [
      'application/pdf',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'application/vnd.openxmlformats-officedocument.presentationml.presentation',
      ...TEXT_TYPES,
    ],
    text: TEXT_TYPES,
  },
} as const satisfies Record<string, ValidationProfile>;

export type ProfileId = keyof typeof PROFILES;

/**
 * Bodies through API Gateway and Lambda top out near 6 MB each way, base64 included, so inline
 * uploads stop here; larger files go through an upload session (presigned POST straight to S3).
 */
export const INLINE_UPLOAD_LIMIT = 4 * MiB;
