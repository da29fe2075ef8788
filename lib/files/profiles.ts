/**
 * Validation profiles: what an upload for a given purpose may be. The scan worker enforces them by
 * the detected type (magic bytes), the size and, for images, the pixel dimensions.
 */
export interface ValidationProfile {
  id: string;
  maxBytes: number;
  /** Detected MIME types accepted. */
  types: readonly string[];
  image?: { minSide: number; maxSide: number };
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
} as const satisfies Record<string, ValidationProfile>;

export type ProfileId = keyof typeof PROFILES;

/**
 * Bodies through API Gateway and Lambda top out near 6 MB each way, base64 included, so inline
 * uploads stop here; larger files go through an upload session (presigned POST straight to S3).
 */
export const INLINE_UPLOAD_LIMIT = 4 * MiB;
