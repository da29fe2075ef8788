import type { UserRecord } from '../store/identity.js';

/**
 * Who asks for a change of users, access or tokens: the operator at the CLI (who holds the
 * deployment's credentials and is trusted with everything), or a person signed in to the console,
 * whose installation access is read live for every request.
 */
export type Administrator = { kind: 'operator' } | { kind: 'user'; id: string; permissions: ReadonlySet<string> };

export type Refusal = 'forbidden' | 'not_found' | 'invalid' | 'conflict';

export class AdministrationRefusedError extends Error {
  override readonly name = 'AdministrationRefusedError';

  constructor(
    readonly reason: Refusal,
    message: string,
  ) {
    super(message);
  }
}

export const isUserAdministrator = (admin: Administrator) => admin.kind === 'operator' || admin.permissions.has('manage-users');

/** Authentication part 9: manage-users for anyone, plus manage-super-users when the subject is a super user. */
export function mayAdminister(admin: Administrator, subject: Pick<UserRecord, 'super_user'>): boolean {
  if (admin.kind === 'operator') return true;
  return admin.permissions.has('manage-users') && (!subject.super_user || admin.permissions.has('manage-super-users'));
}

export function requireMayAdminister(admin: Administrator, subject: Pick<UserRecord, 'super_user'>): void {
  if (!mayAdminister(admin, subject)) {
    throw new AdministrationRefusedError(
      'forbidden',
      subject.super_user ? 'changing a super user needs manage-users and manage-super-users' : 'changing users needs manage-users',
    );
  }
}

/** No one hands out more than they hold: a console permission is granted only by someone holding it. */
export function requireMayGrant(admin: Administrator, permissions: readonly string[]): void {
  if (admin.kind === 'operator') return;
  const beyond = permissions.filter((p) => (p === 'manage-users' || p === 'manage-super-users') && !admin.permissions.has(p));
  if (beyond.length) throw new AdministrationRefusedError('forbidden', `granting ${beyond.join(', ')} needs holding it`);
}

/** A person cannot lock themselves out: disabling or deleting oneself goes through another administrator. */
export function requireNotSelf(admin: Administrator, userId: string, what: string): void {
  if (admin.kind === 'user' && admin.id === userId) throw new AdministrationRefusedError('invalid', `you cannot ${what} yourself`);
}

export const actorIdOf = (admin: Administrator) => (admin.kind === 'operator' ? 'operator' : admin.id);
