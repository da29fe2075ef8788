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

/** The version an If-Match names, when it is this resource's ETag for this view; else undefined. */
export function versionFromIfMatch(ifMatch: string, kind: string, id: string, view = ''): number | undefined {
  const m = /^"(\d{1,15})-([0-9a-f]{20})"$/.exec(ifMatch.trim());
  if (!m) return undefined;
  const version = Number(m[1]);
  return digest(kind, id, version, view) === m[2] ? version : undefined;
}

/** The version inside an ETag this module made (for re-deriving it for another view). */
export function etagVersion(etag: string): number | undefined {
  const m = /^"(\d{1,15})-[0-9a-f]{20}"$/.exec(etag);
  return m ? Number(m[1]) : undefined;
}

/** If-Match must name the current version of this resource in the caller's view; otherwise 412. */
export function requireVersion(ifMatch: string | undefined, kind: string, id: string, current: number, view = ''): void {
  if (versionFromIfMatch(ifMatch ?? '', kind, id, view) !== current) throw preconditionFailed();
}
