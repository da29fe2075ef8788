import { describe, expect, it } from 'vitest';
import { mayAdminister, requireMayGrant, requireNotSelf, type Administrator } from '../../../lib/auth/administrator.js';

const person = (...permissions: string[]): Administrator => ({ kind: 'user', id: '01HZZZZZZZZZZZZZZZZZZZZZZZ', permissions: new Set(permissions) });

describe('mayAdminister', () => {
  it('lets a holder of manage-users administer an ordinary user', () => {
    expect(mayAdminister(person('manage-users'), { super_user: false })).toBe(true);
  });

  it('needs manage-super-users as well for a super user', () => {
    expect(mayAdminister(person('manage-users'), { super_user: true })).toBe(false);
    expect(mayAdminister(person('manage-users', 'manage-super-users'), { super_user: true })).toBe(true);
  });

  it('grants nothing for manage-super-users alone', () => {
    expect(mayAdminister(person('manage-super-users'), { super_user: true })).toBe(false);
  });

  it('trusts the operator at the CLI with everything', () => {
    expect(mayAdminister({ kind: 'operator' }, { super_user: true })).toBe(true);
  });
});

describe('requireMayGrant', () => {
  it('refuses to hand out a console permission the administrator does not hold', () => {
    expect(() => requireMayGrant(person('manage-users'), ['manage-super-users'])).toThrow('granting manage-super-users needs holding it');
  });

  it('lets API permissions through: their own rules apply when a token is issued', () => {
    expect(() => requireMayGrant(person('manage-users'), ['manage-users', 'view-projects'])).not.toThrow();
  });
});

describe('requireNotSelf', () => {
  it('refuses an administrator acting on themselves', () => {
    const me = person('manage-users');
    expect(() => requireNotSelf(me, '01HZZZZZZZZZZZZZZZZZZZZZZZ', 'disable')).toThrow('you cannot disable yourself');
  });
});
