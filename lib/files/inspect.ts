import { fileTypeFromBuffer } from 'file-type';
import { imageSize } from 'image-size';
import { claimedTextType, declaredMediaType, extensionFits, extensionOf, type Claim, type TextType, type ValidationProfile } from './profiles.js';

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

/** Fatal, so that bytes that are not UTF-8 are refused instead of read as U+FFFD. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Text has no magic bytes, so the type comes from the claim and the content must bear it out:
 * valid UTF-8 without NUL (binary formats almost always hold NUL bytes early, and rarely decode
 * as UTF-8), and for JSON, a document that parses. Served only with the type it was accepted as
 * and nosniff, a text file is shown as text whatever markup it holds.
 */
function textType(bytes: Buffer, profile: ValidationProfile, claim: Claim | undefined): TextType | undefined {
  const claimed = claim && claimedTextType(profile, claim);
  if (!claimed || bytes.includes(0)) return undefined;
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    return undefined;
  }
  if (claimed !== 'application/json') return claimed;
  try {
    JSON.parse(text);
    return claimed;
  } catch {
    return undefined;
  }
}

/** The profile's type the bytes are: by magic bytes, or by the text rule for types that have none. */
async function detectType(bytes: Buffer, profile: ValidationProfile, claim: Claim | undefined): Promise<string | undefined> {
  const detected = await fileTypeFromBuffer(bytes);
  if (detected && profile.types.includes(detected.mime)) return detected.mime;
  return textType(bytes, profile, claim);
}

/** What the uploader said a file is, each undefined when it says nothing. */
export interface TypeMismatch {
  detectedType: string;
  declaredType: string | undefined;
  extension: string | undefined;
}

/**
 * A file the profile takes whose declared media type or name's extension says another type: served
 * as what it is under the name it came with, it would open as something else once downloaded
 * (PDF bytes named x.png). A type the profile refuses is unsupported_type, whatever it is called.
 */
export async function typeMismatch(bytes: Buffer, profile: ValidationProfile, claim: Claim): Promise<TypeMismatch | undefined> {
  const detectedType = await detectType(bytes, profile, claim);
  return detectedType ? mismatchOf(detectedType, claim) : undefined;
}

function mismatchOf(detectedType: string, claim: Claim): TypeMismatch | undefined {
  const declaredType = declaredMediaType(claim);
  const extension = extensionOf(claim.fileName);
  if ((declaredType === undefined || declaredType === detectedType) && extensionFits(detectedType, extension)) return undefined;
  return { detectedType, declaredType, extension };
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
