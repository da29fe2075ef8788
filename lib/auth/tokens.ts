import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { isValid as isUlid } from 'ulid';

/**
 * Personal access token strings. The public part carries the identifiers the pipeline needs to
 * read the token, the actor, the actor's access and the target resource in one BatchGetItem, and
 * to count the rate-limit budgets in parallel with it. The secret ends with a MAC of the
 * identifiers under the server key, checked without any read, so that a forged identifier never
 * charges someone else's budget; the stored keyed hash of the whole string stays the proof that
 * the token was issued and not revoked.
 *
 *   aop_ <token ULID> <user ULID> <organisation ULID or 26 zeros> <project ULID or 26 zeros> <16 base62 nonce> <24 hex MAC>
 */
export const TOKEN_PREFIX = 'aop_';
const NONE = '0'.repeat(26);
const NONCE_LENGTH = 16;
const MAC_LENGTH = 24;
const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const SHAPE = /^aop_([0-9A-HJKMNP-TV-Z]{26})([0-9A-HJKMNP-TV-Z]{26})([0-9A-HJKMNP-TV-Z]{26})([0-9A-HJKMNP-TV-Z]{26})([A-Za-z0-9]{40})$/;

export interface TokenClaims {
  tokenId: string;
  userId: string;
  organisationId?: string;
  projectId?: string;
}

export function mintToken(claims: TokenClaims, key: string): string {
  const body = TOKEN_PREFIX + claims.tokenId + claims.userId + (claims.organisationId ?? NONE) + (claims.projectId ?? NONE) + randomBase62(NONCE_LENGTH);
  return body + mac(body, key);
}

const mac = (body: string, key: string) => createHmac('sha256', key).update(`mac:${body}`).digest('hex').slice(0, MAC_LENGTH);

/** The identifiers of a token this server minted (its MAC checks out); undefined otherwise. */
export function verifiedClaims(token: string, key: string): TokenClaims | undefined {
  const claims = parseToken(token);
  if (!claims) return undefined;
  const body = token.slice(0, token.length - MAC_LENGTH);
  const expected = Buffer.from(mac(body, key));
  const presented = Buffer.from(token.slice(-MAC_LENGTH));
  return presented.length === expected.length && timingSafeEqual(presented, expected) ? claims : undefined;
}

/** Reads the identifiers of a well-formed token string; undefined for anything else. */
export function parseToken(token: string): TokenClaims | undefined {
  const m = SHAPE.exec(token);
  if (!m) return undefined;
  const [, tokenId = '', userId = '', org = '', project = ''] = m;
  if (!isUlid(tokenId) || !isUlid(userId)) return undefined;
  const organisationId = org === NONE ? undefined : org;
  const projectId = project === NONE ? undefined : project;
  if ((organisationId && !isUlid(organisationId)) || (projectId && !isUlid(projectId))) return undefined;
  return { tokenId, userId, organisationId, projectId };
}

export function hashToken(token: string, key: string): string {
  return createHmac('sha256', key).update(token).digest('hex');
}

/** Constant-time comparison of a presented token against the stored keyed hash. */
export function tokenMatches(token: string, storedHash: string, key: string): boolean {
  const presented = Buffer.from(hashToken(token, key), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

/** Reads `Authorization: Bearer <token>`; anything else is treated as no credential. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return m?.[1];
}

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 62 * 4: rejecting the rest keeps every character equally likely.
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}
