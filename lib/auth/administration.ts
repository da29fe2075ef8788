import { createHash, randomBytes } from 'node:crypto';
import type * as z from 'zod';
import { settings } from '../config.js';
import { CONSOLE_PERMISSIONS, isConsolePermission, isPermission, permissionsOf, type CredentialType } from '../domain/permissions.js';
import { singleLine, once } from '../domain/validation.js';
import { writeAudit, type AuditRecord } from '../store/audit.js';
import { putEnrolmentLink } from '../store/console.js';
import {
  advanceSessionEpoch,
  createUser,
  deleteToken,
  EmailTakenError,
  getToken,
  getUser,
  grantAccess,
  revokeAccess,
  setUserStatus,
  type AccessScope,
  type UserRecord,
  type UserStatus,
} from '../store/identity.js';
import { keys } from '../store/keys.js';
import { removeAllPasskeys } from '../store/passkeys.js';
import { getOne } from '../store/read.js';
import { actorIdOf, AdministrationRefusedError, requireMayAdminister, requireMayGrant, requireNotSelf, type Administrator } from './administrator.js';

/**
 * User, access and token administration: one implementation for the operator CLI and the console,
 * so the rules (Authentication parts 4 and 9, the console permissions) hold whichever door is used.
 * Every change writes an audit event naming who did it, with no secret, hash or credential id.
 */
export interface AuditContext {
  request_id: string;
  method: string;
  route: string;
  source_ip?: string;
}

export interface IssuedEnrolment {
  /** The one-time secret of the link; only its hash is stored. */
  secret: string;
  expires_at: string;
}

const Email = once(() =>
  singleLine()
    .trim()
    .max(254)
    .regex(/^[^@\s]+@[^@\s]+\.[^@\s]+$|^[^@\s]+@localhost$/, 'must be an email address'),
);
const Name = once(() => singleLine().trim().min(1, 'must not be empty').max(200));

const SCOPE_TYPE: Record<AccessScope['kind'], CredentialType> = { installation: 'administration', organisation: 'organisation', project: 'project' };

async function audit(ctx: AuditContext, admin: Administrator, record: Pick<AuditRecord, 'kind' | 'details' | 'token_id' | 'target'>, now: Date) {
  await writeAudit({ ...ctx, status: 0, actor_id: actorIdOf(admin), ...record }, now);
}

function parsed<T>(schema: z.ZodType<T>, value: unknown, field: string): T {
  const out = schema.safeParse(value);
  if (!out.success) throw new AdministrationRefusedError('invalid', `${field} ${out.error.issues[0]?.message ?? 'is not valid'}`);
  return out.data;
}

async function subject(userId: string): Promise<UserRecord> {
  const user = await getUser(userId);
  if (!user || user.status === 'deleted') throw new AdministrationRefusedError('not_found', `no user ${userId}`);
  return user;
}

export const enrolmentLinkHash = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** The link's secret names its user, so that redeeming it is one GetItem; only the newest link of a user works. */
async function issueEnrolment(user: UserRecord, admin: Administrator, now: Date): Promise<IssuedEnrolment> {
  const secret = `${user.id}.${randomBytes(32).toString('base64url')}`;
  const expires_at = new Date(now.getTime() + settings().ENROLMENT_LINK_HOURS * 3_600_000).toISOString();
  await putEnrolmentLink({ user_id: user.id, link_hash: enrolmentLinkHash(secret), expires_at, created_at: now.toISOString(), created_by: actorIdOf(admin) });
  return { secret, expires_at };
}

export async function createUserAs(
  admin: Administrator,
  input: { email: unknown; name: unknown; superUser: boolean },
  ctx: AuditContext,
  now: Date,
): Promise<{ user: UserRecord; enrolment: IssuedEnrolment }> {
  const email = parsed(Email(), input.email, 'email');
  const name = parsed(Name(), input.name, 'name');
  requireMayAdminister(admin, { super_user: input.superUser });
  let user: UserRecord;
  try {
    user = await createUser({ email, name, superUser: input.superUser }, now);
  } catch (error) {
    if (error instanceof EmailTakenError) throw new AdministrationRefusedError('conflict', error.message);
    throw error;
  }
  const enrolment = await issueEnrolment(user, admin, now);
  await audit(ctx, admin, { kind: 'USER_CREATED', target: { user_id: user.id }, details: { super_user: user.super_user } }, now);
  return { user, enrolment };
}

/**
 * Recovery of a lost authenticator, or a first enrolment again: the user's passkeys go (a lost one
 * must not sign in again) and so do their console sessions, but not their tokens (Authentication
 * part 4: a forced change alone never revokes a credential). The new link registers a passkey.
 */
export async function reEnrolAs(admin: Administrator, userId: string, ctx: AuditContext, now: Date): Promise<IssuedEnrolment> {
  const user = await subject(userId);
  requireMayAdminister(admin, user);
  if (user.status !== 'active') throw new AdministrationRefusedError('invalid', 'only an active user can be enrolled: enable the user first');
  await advanceSessionEpoch(user);
  const removed = await removeAllPasskeys(user.id);
  const enrolment = await issueEnrolment(user, admin, now);
  await audit(ctx, admin, { kind: 'USER_REENROLLED', target: { user_id: user.id }, details: { passkeys_removed: removed } }, now);
  return enrolment;
}

const STATUS_EVENTS: Record<UserStatus, string> = { active: 'USER_ENABLED', disabled: 'USER_DISABLED', deleted: 'USER_DELETED' };

/**
 * Disabling or deleting ends the user's console sessions and API use at their next request (both
 * read the status live); deletion is final. Enabling brings back a disabled user, never a deleted one.
 */
export async function setStatusAs(admin: Administrator, userId: string, status: UserStatus, ctx: AuditContext, now: Date): Promise<void> {
  const user = await subject(userId);
  requireMayAdminister(admin, user);
  if (status !== 'active') requireNotSelf(admin, userId, status === 'disabled' ? 'disable' : 'delete');
  if (user.status === status) return;
  if (!(await setUserStatus(userId, status, now))) throw new AdministrationRefusedError('not_found', `no user ${userId}`);
  await audit(ctx, admin, { kind: STATUS_EVENTS[status], target: { user_id: userId } }, now);
}

/** What may be granted at the scope: its credential type's permissions, and at installation scope the console's. */
export function grantablePermissions(scope: AccessScope['kind']): string[] {
  return [...permissionsOf(SCOPE_TYPE[scope]), ...(scope === 'installation' ? CONSOLE_PERMISSIONS : [])];
}

export async function grantAccessAs(
  admin: Administrator,
  userId: string,
  scope: AccessScope,
  permissions: readonly string[],
  ctx: AuditContext,
  now: Date,
): Promise<void> {
  const user = await subject(userId);
  requireMayAdminister(admin, user);
  const allowed = grantablePermissions(scope.kind);
  const wrong = permissions.filter((p) => !allowed.includes(p));
  if (wrong.length) throw new AdministrationRefusedError('invalid', `not ${scope.kind} permissions: ${wrong.join(', ')}`);
  if (permissions.length === 0) throw new AdministrationRefusedError('invalid', 'pick at least one permission, or revoke the access instead');
  requireMayGrant(admin, permissions);
  if (scope.kind !== 'installation') {
    const target = scope.kind === 'organisation' ? keys.organisation(scope.id) : keys.project(scope.id);
    if (!(await getOne(target))) throw new AdministrationRefusedError('not_found', `no ${scope.kind} ${scope.id}`);
  }
  const stored = [...new Set(permissions)].filter((p) => isPermission(p) || isConsolePermission(p));
  await grantAccess(userId, scope, stored, now);
  await audit(ctx, admin, { kind: 'ACCESS_GRANTED', target: targetOf(userId, scope), details: { permissions: stored.join(',') } }, now);
}

export async function revokeAccessAs(admin: Administrator, userId: string, scope: AccessScope, ctx: AuditContext, now: Date): Promise<boolean> {
  const user = await subject(userId);
  requireMayAdminister(admin, user);
  const revoked = await revokeAccess(userId, scope, now);
  if (revoked) await audit(ctx, admin, { kind: 'ACCESS_REVOKED', target: targetOf(userId, scope) }, now);
  return revoked;
}

const targetOf = (userId: string, scope: AccessScope): Record<string, string> => ({
  user_id: userId,
  scope: scope.kind,
  ...(scope.kind === 'installation' ? {} : { [`${scope.kind}_id`]: scope.id }),
});

/**
 * Authentication part 9: owners revoke their own tokens; an administrator holding manage-users
 * (plus manage-super-users for a super user's token) revokes another user's. Only the named token
 * is deleted, and the audit event names administrator, owner and token id. A token the person may
 * not touch is answered like a missing one.
 */
export async function revokeTokenAs(admin: Administrator, tokenId: string, ctx: AuditContext, now: Date): Promise<{ owner_id: string }> {
  const token = await getToken(tokenId);
  const missing = () => new AdministrationRefusedError('not_found', `no token ${tokenId}`);
  if (!token) throw missing();
  const ownerId = token.user_id;
  if (admin.kind === 'user' && admin.id !== ownerId) {
    const owner = await getUser(ownerId);
    if (!admin.permissions.has('manage-users')) throw missing();
    requireMayAdminister(admin, owner ?? { super_user: false });
  }
  const removed = await deleteToken(tokenId);
  if (!removed) throw missing();
  await audit(ctx, admin, { kind: 'TOKEN_REVOKED', token_id: tokenId, details: { owner_id: ownerId } }, now);
  return { owner_id: ownerId };
}
