import { createHash } from 'node:crypto';
import { isValid as isUlid } from 'ulid';
import { singleLine } from './validation.js';

/** Resource identifiers are ULIDs (seed, Conventions), in paths and wherever a body names a resource. */
export const Ulid = singleLine()
  .length(26)
  .refine((s) => isUlid(s), { message: 'must be a ULID' })
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
