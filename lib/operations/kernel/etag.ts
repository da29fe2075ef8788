import { createHash } from 'node:crypto';
import { preconditionFailed } from '../../errors.js';

/**
 * Strong ETags (RFC 9110 8.8.3): the stored version plus a digest of what identifies the
 * representation, including the caller's view (which fields redaction leaves), so that two
 * representations that differ never share an ETag, and an ETag from another view never validates.
 */
export function etagFor(kind: string, id: string, version: number, view = ''): string {
  return `"${version}-${digest(kind, id, version, view)}"`;
}

function digest(kind: string, id: string, version: number, view: string): string {
  return createHash('sha256').update(`${kind}\n${id}\n${version}\n${view}`).digest('hex').slice(0, 20);
}

const STRONG_ETAG = /^"(\d{1,15})-([0-9a-f]{20})"$/;

/** The version inside an ETag this module made (for re-deriving it for another view). */
export function etagVersion(etag: string): number | undefined {
  const m = STRONG_ETAG.exec(etag);
  return m ? Number(m[1]) : undefined;
}

/**
 * The If-Match reader: the header must name `current`, the resource's ETag in the caller's view
 * (etagFor, or the operation's builder around it); otherwise 412. Compared as version and digest,
 * so a version written with leading zeros names the same ETag.
 */
export function requireIfMatch(ifMatch: string | undefined, current: string): void {
  const named = STRONG_ETAG.exec((ifMatch ?? '').trim());
  const own = STRONG_ETAG.exec(current);
  if (!named || !own || Number(named[1]) !== Number(own[1]) || named[2] !== own[2]) throw preconditionFailed();
}
