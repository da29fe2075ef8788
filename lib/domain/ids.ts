import { createHash } from 'node:crypto';
import { singleLine } from './validation.js';

/**
 * A ULID as this API writes it: 26 Crockford base-32 characters in upper case, the first at most 7
 * (a 48-bit time). Stored identifiers are upper case, so a lower-case spelling could only ever be
 * 404: it is refused as malformed instead, and the pattern is the whole rule, for the server and
 * the document alike.
 */
export const ULID_CHARACTERS = '[0-7][0-9A-HJKMNP-TV-Z]{25}';
export const ULID_PATTERN = new RegExp(`^${ULID_CHARACTERS}$`);

/** Resource identifiers are ULIDs (seed, Conventions), in paths and wherever a body names a resource. */
export const Ulid = singleLine()
  .regex(ULID_PATTERN, 'must be a ULID: 26 Crockford base-32 characters in upper case')
  .meta({ description: 'ULID', examples: ['01JD3Q5Z8X6Y7W2V9T4S3R2P1N'] });

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A number in `width` Crockford base-32 characters, most significant first, so that string order is number order. */
export const base32 = (n: number, width: number) => Array.from({ length: width }, (_, i) => CROCKFORD[Math.floor(n / 32 ** (width - 1 - i)) % 32]).join('');

/** `length` Crockford base-32 characters of the SHA-256 of `text`: the drawn part of a derived ULID. */
export function digestBase32(text: string, length: number): string {
  const digest = createHash('sha256').update(text).digest();
  let out = '';
  for (let i = 0; i < length; i++) out += CROCKFORD[digest[i]! % 32];
  return out;
}
