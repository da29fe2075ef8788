// What a file is, from its bytes and its claim: all a request function needs to refuse a mismatch
// at the edge. Kept apart from inspect.ts, whose image reader only the scan worker needs, and
// through file-type's core, which reads bytes in memory without the Node entry's file and stream
// readers: each upload-taking function bundles less and loads less. It is imported at the first
// upload, so that a function's other operations never load it.
import { claimedTextType, declaredMediaType, extensionFits, extensionOf, type Claim, type TextType, type ValidationProfile } from './profiles.js';

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
export async function detectType(bytes: Buffer, profile: ValidationProfile, claim: Claim | undefined): Promise<string | undefined> {
  const { fileTypeFromBuffer } = await import('file-type/core');
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

export function mismatchOf(detectedType: string, claim: Claim): TypeMismatch | undefined {
  const declaredType = declaredMediaType(claim);
  const extension = extensionOf(claim.fileName);
  if ((declaredType === undefined || declaredType === detectedType) && extensionFits(detectedType, extension)) return undefined;
  return { detectedType, declaredType, extension };
}
