import { effectivePermissions } from './authority.js';
import { accessKey, asAccess, asToken, asUser, type AccessScope } from '../store/identity.js';
import { keys } from '../store/keys.js';
import { getMany, keyString } from '../store/read.js';

export interface Attribution {
  tokenId: string;
  userId: string;
  scope: AccessScope;
  /** Names, not Permissions: work queued earlier may name one retired since, which no grant holds any more. */
  permissions: readonly string[];
}

/**
 * Seed, Authentication parts 5 and 10: queued work stays attributed to the credential and actor
 * that started it, and stops when the token is revoked or expired, the actor is no longer active,
 * or the permission or access is gone. Checked before protected work and durable writes.
 */
export async function stillAuthorised(job: Attribution, now: Date): Promise<boolean> {
  const tokenKey = keys.token(job.tokenId);
  const userKey = keys.user(job.userId);
  const access = accessKey(job.userId, job.scope);
  const items = await getMany([tokenKey, userKey, access]);
  const token = asToken(items.get(keyString(tokenKey)));
  const user = asUser(items.get(keyString(userKey)));
  const grant = asAccess(items.get(keyString(access)));
  if (!token || token.user_id !== job.userId || Date.parse(token.expires_at) <= now.getTime()) return false;
  if (user?.status !== 'active' || !grant) return false;
  const effective: ReadonlySet<string> = effectivePermissions(token.type, token.abilities, grant.permissions);
  return job.permissions.every((p) => effective.has(p));
}
