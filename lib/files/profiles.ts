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

/**
 * The extensions a file of each accepted type may be named with. A download keeps the name it was
 * uploaded with, and a desktop opens a file by its extension, so a name that says another type
 * (a PDF named x.png, or x.html) is refused rather than served (inspect.ts).
 */
const EXTENSIONS: Record<string, readonly string[]> = {
  'application/pdf': ['pdf'],
  'image/png': ['png'],
  'image/jpeg': ['jpg', 'jpeg', 'jpe', 'jfif'],
  'image/webp': ['webp'],
  'image/gif': ['gif'],
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': ['docx'],
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': ['xlsx'],
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': ['pptx'],
  'text/plain': ['txt', 'log'],
  'text/csv': ['csv'],
  'application/json': ['json'],
};
const BY_EXTENSION = new Map<string, TextType>(TEXT_TYPES.flatMap((t) => EXTENSIONS[t]!.map((ext) => [ext, t] as const)));
const GENERIC = new Set(['', 'application/octet-stream']);
/** Names some clients send for JPEG. */
const ALIASES: Record<string, string> = { 'image/jpg': 'image/jpeg', 'image/pjpeg': 'image/jpeg' };

/** The media type the uploader declared, without parameters; undefined when it says nothing (upload sessions never carry one). */
export function declaredMediaType(claim: Claim): string | undefined {
  const declared = claim.declaredType.split(';')[0]!.trim().toLowerCase();
  return GENERIC.has(declared) ? undefined : (ALIASES[declared] ?? declared);
}

/**
 * The file name's extension, lower case; undefined without a dot. Trailing dots and spaces do not
 * count: Windows drops them, so x.html. is saved as x.html.
 */
export function extensionOf(fileName: string): string | undefined {
  const name = fileName.replace(/[. ]+$/, '');
  const dot = name.lastIndexOf('.');
  return dot < 0 ? undefined : name.slice(dot + 1).toLowerCase();
}

/** Whether a name with this extension may hold a file of this type; a name without one says nothing. */
export const extensionFits = (type: string, extension: string | undefined) => extension === undefined || (EXTENSIONS[type] ?? []).includes(extension);

/**
 * The text type the uploader claims, if the profile takes it: the declared media type when it
 * names one, else, when the declared type says nothing (upload sessions never carry one), the
 * file name's extension. A file declared as anything else claims no text type.
 */
export function claimedTextType(profile: ValidationProfile, claim: Claim): TextType | undefined {
  if (!profile.text) return undefined;
  const declared = declaredMediaType(claim);
  const extension = extensionOf(claim.fileName);
  const named = declared ?? (extension === undefined ? undefined : BY_EXTENSION.get(extension));
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
