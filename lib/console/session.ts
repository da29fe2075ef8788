import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Administrator } from '../auth/administrator.js';
import { deleteSession, getSession, putSession, touchSession, type ConsoleSession } from '../store/console.js';
import { asAccess, asUser, type UserRecord } from '../store/identity.js';
import { keys } from '../store/keys.js';
import { getMany, keyString } from '../store/read.js';
import type { ConsoleConfig } from './config.js';
import type { ConsoleRequest } from './http.js';

/**
 * `__Host-` cookies must be Secure with Path=/ and no Domain, so no other host or path can set or
 * shadow them; HttpOnly keeps them from scripts, SameSite=Strict from every cross-site request.
 * Browsers treat http://localhost as a secure context, so the same attributes work locally.
 */
export const SESSION_COOKIE = '__Host-aop_session';
export const CEREMONY_COOKIE = '__Host-aop_ceremony';

export const setCookie = (name: string, value: string, maxAgeSeconds: number) =>
  `${name}=${value}; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}`;
export const clearCookie = (name: string) => setCookie(name, '', 0);

export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
export const newSecret = () => randomBytes(32).toString('base64url');

/** 32 random bytes in base64url: anything else was never issued here, and is not looked up. */
const SECRET_SHAPE = /^[A-Za-z0-9_-]{43}$/;
export const cookieSecret = (request: ConsoleRequest, name: string) => {
  const value = request.cookies[name];
  return value && SECRET_SHAPE.test(value) ? value : undefined;
};

/** Activity is written at most this often: the idle timeout does not need every request. */
const TOUCH_EVERY_MS = 60_000;

export interface SignedIn {
  hash: string;
  session: ConsoleSession;
  user: UserRecord;
  /** The user's installation access, read live: the console permissions and Administration's. */
  installation: ReadonlySet<string>;
  admin: Administrator;
}

export async function startSession(user: UserRecord, config: ConsoleConfig, now: Date): Promise<string> {
  const secret = newSecret();
  const session: ConsoleSession = {
    user_id: user.id,
    epoch: user.session_epoch ?? 0,
    created_at: now.toISOString(),
    last_seen_at: now.toISOString(),
    confirmed_at: now.toISOString(),
    csrf: newSecret(),
    expires_at: new Date(now.getTime() + config.absoluteMs).toISOString(),
  };
  await putSession(sha256(secret), session, new Date(now.getTime() + config.idleMs));
  return setCookie(SESSION_COOKIE, secret, Math.floor(config.absoluteMs / 1000));
}

/**
 * The session of the request's cookie, when it is still good: within both timeouts, its user
 * active and not re-enrolled since. A session that is not is deleted on the way.
 */
export async function loadSession(request: ConsoleRequest, config: ConsoleConfig, now: Date): Promise<SignedIn | undefined> {
  const secret = cookieSecret(request, SESSION_COOKIE);
  if (!secret) return undefined;
  const hash = sha256(secret);
  const session = await getSession(hash);
  if (!session) return undefined;
  const t = now.getTime();
  const timedOut = t >= Date.parse(session.expires_at) || t - Date.parse(session.last_seen_at) >= config.idleMs;
  const found = timedOut ? undefined : await getMany([keys.user(session.user_id), keys.installationAccess(session.user_id)]);
  const user = asUser(found?.get(keyString(keys.user(session.user_id))));
  if (user?.status !== 'active' || (user.session_epoch ?? 0) !== session.epoch) {
    await deleteSession(hash);
    return undefined;
  }
  if (t - Date.parse(session.last_seen_at) >= TOUCH_EVERY_MS) await touchSession(hash, session, now, new Date(t + config.idleMs));
  const access = asAccess(found?.get(keyString(keys.installationAccess(session.user_id))));
  const installation = new Set<string>(access?.permissions ?? []);
  return { hash, session, user, installation, admin: { kind: 'user', id: user.id, permissions: installation } };
}

/** Sign-out: the session item goes, and so does the cookie. */
export async function deleteSessionCookie(signedIn: SignedIn): Promise<string> {
  await deleteSession(signedIn.hash);
  return clearCookie(SESSION_COOKIE);
}

export const recentlyConfirmed = (signedIn: SignedIn, config: ConsoleConfig, now: Date) =>
  now.getTime() - Date.parse(signedIn.session.confirmed_at) < config.confirmationMs;

export function csrfMatches(signedIn: SignedIn, presented: string | null | undefined): boolean {
  if (!presented) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(signedIn.session.csrf);
  return a.length === b.length && timingSafeEqual(a, b);
}
