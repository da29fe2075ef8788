import { imageSize } from 'image-size';
import { detectType, mismatchOf } from './detect.js';
import type { Claim, ValidationProfile } from './profiles.js';

/** Reasons a file is refused: safe codes, never raw errors. */
export type RejectionCode =
  | 'file_too_large'
  | 'empty_file'
  | 'unsupported_type'
  | 'file_type_mismatch'
  | 'image_unreadable'
  | 'image_dimensions_out_of_range'
  | 'malware_detected';

export interface Inspection {
  detectedType: string;
  width?: number;
  height?: number;
}

/**
 * The EICAR anti-malware test file (eicar.org): every scanner must flag it, so it stands in for
 * malware locally and in tests. It may be followed by whitespace only, and is at most 128 bytes.
 */
const EICAR = 'X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*';

export function looksMalicious(bytes: Buffer): boolean {
  if (bytes.length > 128) return false;
  const text = bytes.toString('latin1');
  return text.startsWith(EICAR) && text.slice(EICAR.length).trim() === '';
}

/** Checks a file against its profile by content, and against what the uploader says it is. */
export async function inspect(bytes: Buffer, profile: ValidationProfile, claim?: Claim): Promise<Inspection | { rejected: RejectionCode }> {
  if (bytes.length === 0) return { rejected: 'empty_file' };
  if (bytes.length > profile.maxBytes) return { rejected: 'file_too_large' };
  const detectedType = await detectType(bytes, profile, claim);
  if (!detectedType) return { rejected: 'unsupported_type' };
  if (claim && mismatchOf(detectedType, claim)) return { rejected: 'file_type_mismatch' };
  if (!profile.image) return { detectedType };
  let size: { width?: number; height?: number };
  try {
    size = imageSize(bytes);
  } catch {
    return { rejected: 'image_unreadable' };
  }
  const { width, height } = size;
  if (!width || !height) return { rejected: 'image_unreadable' };
  const { minSide, maxSide } = profile.image;
  if (Math.min(width, height) < minSide || Math.max(width, height) > maxSide) return { rejected: 'image_dimensions_out_of_range' };
  return { detectedType, width, height };
}
