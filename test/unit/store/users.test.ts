import { describe, expect, it } from 'vitest';
import { keys } from '../../../lib/store/keys.js';
import { asUser, toUser } from '../../../lib/store/users.js';
import { buildUser } from '../../support/factories.js';

/* The user and access schemas' reads are tested through identity.ts, which re-exports them (identity.test.ts). */

const user = buildUser();
const stored = { ...keys.user(user.id), entity: 'user', ...user };

describe('a stored user', () => {
  it('reads the access version every grant moves (members.ts requires it as read)', () => {
    expect(toUser({ ...stored, access_version: 3 }).access_version).toBe(3);
  });

  it('refuses an access version that is not a number, naming its key', () => {
    expect(() => asUser({ ...stored, access_version: '3' })).toThrow(`USER#${user.id}|PROFILE`);
  });
});
