import { createHash } from 'node:crypto';

/** This product's namespace for name-based (version 5) UUIDs; fixed, so that a name always gives the same UUID. */
const NAMESPACE = Buffer.from('6f1c2a4e9b3d4f57a8e2c0d4b6a19e73', 'hex');

/**
 * Name-based UUIDs (RFC 4122 version 5) of one generation: the same generation and the same
 * identity give the same UUID, so that rendering a generation again gives the same document, and
 * another generation gives other UUIDs.
 */
export function uuidsOf(generationId: string): (...identity: string[]) => string {
  return (...identity) => {
    const hash = createHash('sha1')
      .update(NAMESPACE)
      .update([generationId, ...identity].join('\u0000'), 'utf8')
      .digest();
    hash[6] = (hash[6]! & 0x0f) | 0x50;
    hash[8] = (hash[8]! & 0x3f) | 0x80;
    const hex = hash.subarray(0, 16).toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };
}
