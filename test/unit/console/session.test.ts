import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { BatchGetCommand, DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  clearCookie,
  cookieSecret,
  csrfMatches,
  deleteSessionCookie,
  loadSession,
  recentlyConfirmed,
  SESSION_COOKIE,
  setCookie,
  sha256,
  type SignedIn,
  startSession,
} from '../../../lib/console/session.js';
import type { ConsoleSession } from '../../../lib/store/console.js';
import { resetDdbClient, tableName } from '../../../lib/store/client.js';
import type { UserRecord } from '../../../lib/store/identity.js';
import { keys } from '../../../lib/store/keys.js';
import type { Item } from '../../../lib/store/read.js';
import { CONSOLE_CONFIG, requestWithCookies } from '../../support/console.js';
import { buildConsoleSession, buildUser, storedAccess } from '../../support/factories.js';

const ddb = mockClient(DynamoDBDocumentClient);
beforeEach(() => {
  ddb.reset();
  resetDdbClient();
  ddb.on(PutCommand).resolves({});
  ddb.on(UpdateCommand).resolves({});
  ddb.on(DeleteCommand).resolves({});
});

const SECRET = 'S'.repeat(43);
const HASH = sha256(SECRET);
const started = new Date('2026-01-01T00:00:00.000Z');
const later = (ms: number) => new Date(started.getTime() + ms);

describe('setCookie and clearCookie', () => {
  it('set a __Host- cookie the browser keeps from scripts and other sites', () => {
    expect(setCookie(SESSION_COOKIE, 'v', 60)).toBe('__Host-aop_session=v; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=60');
  });

  it('clear the cookie with an empty value that expires at once', () => {
    expect(clearCookie(SESSION_COOKIE)).toBe('__Host-aop_session=; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=0');
  });
});

describe('cookieSecret', () => {
  it('answers a cookie of the shape the console issues', () => {
    expect(cookieSecret(requestWithCookies({ [SESSION_COOKIE]: SECRET }), SESSION_COOKIE)).toBe(SECRET);
  });

  it.each([
    ['no such cookie', {}],
    ['a shorter value', { [SESSION_COOKIE]: 'S'.repeat(42) }],
    ['a value with characters outside base64url', { [SESSION_COOKIE]: `${'S'.repeat(42)}=` }],
  ])('answers nothing for %s', (_label, cookies) => {
    expect(cookieSecret(requestWithCookies(cookies), SESSION_COOKIE)).toBeUndefined();
  });
});

describe('startSession', () => {
  const user = buildUser({ session_epoch: 3 });

  it('sets the session cookie for the absolute timeout', async () => {
    const cookie = await startSession(user, CONSOLE_CONFIG, started);
    expect(cookie).toMatch(/^__Host-aop_session=[A-Za-z0-9_-]{43}; Path=\/; Secure; HttpOnly; SameSite=Strict; Max-Age=43200$/);
  });

  it('stores the session under the hash of the cookie only, with the user epoch, both timeouts and a form token, where none is', async () => {
    const cookie = await startSession(user, CONSOLE_CONFIG, started);
    const secret = /=([^;]+);/.exec(cookie)![1]!;
    const session: ConsoleSession = {
      user_id: user.id,
      epoch: 3,
      created_at: started.toISOString(),
      last_seen_at: started.toISOString(),
      confirmed_at: started.toISOString(),
      csrf: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      expires_at: later(CONSOLE_CONFIG.absoluteMs).toISOString(),
    };
    expect(ddb.commandCalls(PutCommand).map((c) => c.args[0].input)).toEqual([
      {
        TableName: tableName(),
        Item: { ...keys.consoleSession(sha256(secret)), entity: 'console-session', ...session, ttl: later(CONSOLE_CONFIG.idleMs).getTime() / 1000 },
        ConditionExpression: 'attribute_not_exists(#cnd0)',
        ExpressionAttributeNames: { '#cnd0': 'PK' },
      },
    ]);
  });

  it('starts a user who never re-enrolled at epoch 0', async () => {
    await startSession(buildUser(), CONSOLE_CONFIG, started);
    expect(ddb.commandCalls(PutCommand)[0]!.args[0].input.Item?.epoch).toBe(0);
  });
});

describe('loadSession', () => {
  const user = buildUser({ session_epoch: 2 });
  const session = buildConsoleSession({ user_id: user.id, epoch: 2, expires_at: later(CONSOLE_CONFIG.absoluteMs).toISOString() });
  const signedIn = requestWithCookies({ [SESSION_COOKIE]: SECRET });

  function stored(s: ConsoleSession | undefined, u: UserRecord | undefined, permissions?: string[]) {
    ddb.on(GetCommand, { Key: keys.consoleSession(HASH) }).resolves(s ? { Item: { ...keys.consoleSession(HASH), entity: 'console-session', ...s } } : {});
    const items: Item[] = [
      ...(u ? [{ ...keys.user(u.id), entity: 'user', ...u }] : []),
      ...(permissions ? [storedAccess(user.id, { kind: 'installation' }, permissions)] : []),
    ];
    ddb.on(BatchGetCommand).resolves({ Responses: { [tableName()]: items } });
  }
  const deleted = () => ddb.commandCalls(DeleteCommand).map((c) => c.args[0].input);

  it('answers the session, its user and the installation access read live', async () => {
    stored(session, user, ['manage-users']);
    expect(await loadSession(signedIn, CONSOLE_CONFIG, later(1000))).toEqual({
      hash: HASH,
      session,
      user,
      installation: new Set(['manage-users']),
      admin: { kind: 'user', id: user.id, permissions: new Set(['manage-users']) },
    });
  });

  it('reads the user and the installation access together, strongly consistent', async () => {
    stored(session, user);
    await loadSession(signedIn, CONSOLE_CONFIG, later(1000));
    expect(ddb.commandCalls(BatchGetCommand).map((c) => c.args[0].input)).toEqual([
      { RequestItems: { [tableName()]: { Keys: [keys.user(user.id), keys.installationAccess(user.id)], ConsistentRead: true } } },
    ]);
  });

  it('answers a user without installation access with no permissions', async () => {
    stored(session, user);
    expect((await loadSession(signedIn, CONSOLE_CONFIG, later(1000)))?.installation).toEqual(new Set());
  });

  it('reads nothing for a request without a session cookie of the right shape', async () => {
    expect(await loadSession(requestWithCookies({ [SESSION_COOKIE]: 'short' }), CONSOLE_CONFIG, later(1000))).toBeUndefined();
    expect(ddb.calls()).toEqual([]);
  });

  it('answers nothing for a cookie of no session', async () => {
    stored(undefined, user);
    expect(await loadSession(signedIn, CONSOLE_CONFIG, later(1000))).toBeUndefined();
  });

  it('ends a session past its absolute timeout, without reading its user', async () => {
    stored({ ...session, last_seen_at: later(CONSOLE_CONFIG.absoluteMs - 1000).toISOString() }, user);
    expect(await loadSession(signedIn, CONSOLE_CONFIG, later(CONSOLE_CONFIG.absoluteMs))).toBeUndefined();
    expect([deleted(), ddb.commandCalls(BatchGetCommand)]).toEqual([[{ TableName: tableName(), Key: keys.consoleSession(HASH) }], []]);
  });

  it('ends a session idle for the idle timeout', async () => {
    stored(session, user);
    expect(await loadSession(signedIn, CONSOLE_CONFIG, later(CONSOLE_CONFIG.idleMs))).toBeUndefined();
    expect(deleted()).toEqual([{ TableName: tableName(), Key: keys.consoleSession(HASH) }]);
  });

  it.each([
    ['is disabled', () => ({ ...user, status: 'disabled' as const })],
    ['was re-enrolled since', () => ({ ...user, session_epoch: 3 })],
    ['is gone', () => undefined],
  ])('ends the session of a user who %s', async (_label, current) => {
    stored(session, current());
    expect(await loadSession(signedIn, CONSOLE_CONFIG, later(1000))).toBeUndefined();
    expect(deleted()).toEqual([{ TableName: tableName(), Key: keys.consoleSession(HASH) }]);
  });

  it('writes no activity within a minute of the last', async () => {
    stored(session, user);
    await loadSession(signedIn, CONSOLE_CONFIG, later(59_999));
    expect(ddb.commandCalls(UpdateCommand)).toEqual([]);
  });

  it('moves the idle timeout of a session last seen a minute ago or more, while the session is there', async () => {
    stored(session, user);
    await loadSession(signedIn, CONSOLE_CONFIG, later(60_000));
    expect(ddb.commandCalls(UpdateCommand).map((c) => c.args[0].input)).toEqual([
      {
        TableName: tableName(),
        Key: keys.consoleSession(HASH),
        UpdateExpression: 'SET #set0 = :set0, #set1 = :set1',
        ConditionExpression: 'attribute_exists(#cnd0)',
        ExpressionAttributeNames: { '#set0': 'last_seen_at', '#set1': 'ttl', '#cnd0': 'PK' },
        ExpressionAttributeValues: { ':set0': later(60_000).toISOString(), ':set1': later(60_000 + CONSOLE_CONFIG.idleMs).getTime() / 1000 },
      },
    ]);
  });
});

const signedIn = (over: Partial<ConsoleSession> = {}): SignedIn => {
  const user = buildUser();
  return {
    hash: HASH,
    session: buildConsoleSession({ user_id: user.id, ...over }),
    user,
    installation: new Set(),
    admin: { kind: 'user', id: user.id, permissions: new Set() },
  };
};

describe('deleteSessionCookie', () => {
  it('deletes the session item and clears the cookie', async () => {
    expect(await deleteSessionCookie(signedIn())).toBe(clearCookie(SESSION_COOKIE));
    expect(ddb.commandCalls(DeleteCommand).map((c) => c.args[0].input)).toEqual([{ TableName: tableName(), Key: keys.consoleSession(HASH) }]);
  });
});

describe('recentlyConfirmed', () => {
  it('holds within the confirmation window of the last passkey assertion', () => {
    expect(recentlyConfirmed(signedIn({ confirmed_at: started.toISOString() }), CONSOLE_CONFIG, later(CONSOLE_CONFIG.confirmationMs - 1))).toBe(true);
  });

  it('ends when the window does', () => {
    expect(recentlyConfirmed(signedIn({ confirmed_at: started.toISOString() }), CONSOLE_CONFIG, later(CONSOLE_CONFIG.confirmationMs))).toBe(false);
  });
});

describe('csrfMatches', () => {
  const session = signedIn({ csrf: 'T'.repeat(43) });

  it('accepts the session’s own form token', () => {
    expect(csrfMatches(session, 'T'.repeat(43))).toBe(true);
  });

  it.each([
    ['another token of the same length', 'U'.repeat(43)],
    ['a token of another length', 'T'.repeat(42)],
    ['an empty token', ''],
    ['no token', null],
  ])('refuses %s', (_label, presented) => {
    expect(csrfMatches(session, presented)).toBe(false);
  });
});
