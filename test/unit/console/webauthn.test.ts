import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DeleteCommand, DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { CEREMONY_COOKIE, sha256 } from '../../../lib/console/session.js';
import {
  authenticationOptions,
  beginCeremony,
  claimedPasskey,
  registrationOptions,
  spendCeremony,
  userHandleOf,
  verifiedAssertion,
  verifiedRegistration,
} from '../../../lib/console/webauthn.js';
import { resetDdbClient, tableName } from '../../../lib/store/client.js';
import type { Ceremony } from '../../../lib/store/console.js';
import { keys } from '../../../lib/store/keys.js';
import { CONSOLE_CONFIG, requestWithCookies, softPasskey } from '../../support/console.js';
import { buildPasskey, buildUser } from '../../support/factories.js';

const ddb = mockClient(DynamoDBDocumentClient);
beforeEach(() => {
  ddb.reset();
  resetDdbClient();
  ddb.on(PutCommand).resolves({});
});

const now = new Date('2026-01-01T00:00:00.000Z');
const FIVE_MINUTES = 5 * 60_000;
const SECRET = 'S'.repeat(43);
const CHALLENGE = Buffer.from('a challenge of the ceremony').toString('base64url');

describe('beginCeremony', () => {
  it('sets the ceremony cookie for five minutes', async () => {
    expect(await beginCeremony('sign-in', CHALLENGE, now)).toMatch(
      /^__Host-aop_ceremony=[A-Za-z0-9_-]{43}; Path=\/; Secure; HttpOnly; SameSite=Strict; Max-Age=300$/,
    );
  });

  it('stores the challenge under the hash of the cookie, bound to the user and session given, until it expires', async () => {
    const cookie = await beginCeremony('register', CHALLENGE, now, { user_id: 'U', session_hash: 'H' });
    const secret = /=([^;]+);/.exec(cookie)![1]!;
    const expires = new Date(now.getTime() + FIVE_MINUTES);
    expect(ddb.commandCalls(PutCommand).map((c) => c.args[0].input)).toEqual([
      {
        TableName: tableName(),
        Item: {
          ...keys.consoleCeremony(sha256(secret)),
          entity: 'console-ceremony',
          purpose: 'register',
          challenge: CHALLENGE,
          expires_at: expires.toISOString(),
          user_id: 'U',
          session_hash: 'H',
          ttl: expires.getTime() / 1000,
        },
      },
    ]);
  });
});

describe('spendCeremony', () => {
  const stored = (ceremony: Ceremony) =>
    ddb.on(DeleteCommand).resolves({ Attributes: { ...keys.consoleCeremony(sha256(SECRET)), entity: 'console-ceremony', ...ceremony } });
  const ceremony: Ceremony = { purpose: 'sign-in', challenge: CHALLENGE, expires_at: new Date(now.getTime() + FIVE_MINUTES).toISOString() };
  const withCookie = requestWithCookies({ [CEREMONY_COOKIE]: SECRET });

  it('answers the ceremony of the cookie', async () => {
    stored(ceremony);
    expect(await spendCeremony(withCookie, 'sign-in', now)).toEqual(ceremony);
  });

  it('deletes the ceremony as it reads it, so that its challenge answers once', async () => {
    stored(ceremony);
    await spendCeremony(withCookie, 'sign-in', now);
    expect(ddb.commandCalls(DeleteCommand).map((c) => c.args[0].input)).toEqual([
      { TableName: tableName(), Key: keys.consoleCeremony(sha256(SECRET)), ReturnValues: 'ALL_OLD' },
    ]);
  });

  it('reads nothing without a ceremony cookie of the right shape', async () => {
    expect(await spendCeremony(requestWithCookies({ [CEREMONY_COOKIE]: 'short' }), 'sign-in', now)).toBeUndefined();
    expect(ddb.calls()).toEqual([]);
  });

  it('answers nothing when the ceremony is gone', async () => {
    ddb.on(DeleteCommand).resolves({});
    expect(await spendCeremony(withCookie, 'sign-in', now)).toBeUndefined();
  });

  it('answers nothing for a ceremony begun for something else', async () => {
    stored({ ...ceremony, purpose: 'confirm' });
    expect(await spendCeremony(withCookie, 'sign-in', now)).toBeUndefined();
  });

  it('answers nothing once the ceremony has expired', async () => {
    stored(ceremony);
    expect(await spendCeremony(withCookie, 'sign-in', new Date(now.getTime() + FIVE_MINUTES))).toBeUndefined();
  });
});

describe('userHandleOf', () => {
  it('is the bytes of the user id', () => {
    expect(Buffer.from(userHandleOf({ id: '01M84T2AZS9C8TZ6EGZG2RXYHA' })).toString('utf8')).toBe('01M84T2AZS9C8TZ6EGZG2RXYHA');
  });
});

describe('registrationOptions', () => {
  const user = buildUser({ email: 'ann@example.org', name: 'Ann' });

  it('asks for a discoverable, user-verified passkey of this relying party, for the user', async () => {
    const options = await registrationOptions(CONSOLE_CONFIG, user, []);
    expect(options).toMatchObject({
      rp: { name: 'Assessment Operations', id: 'assess.example.gov.au' },
      user: { id: Buffer.from(user.id).toString('base64url'), name: 'ann@example.org', displayName: 'Ann' },
      attestation: 'none',
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    });
  });

  it('excludes the passkeys the user has already', async () => {
    const existing = buildPasskey({ user_id: user.id, transports: ['usb'] });
    expect((await registrationOptions(CONSOLE_CONFIG, user, [existing])).excludeCredentials).toEqual([
      { id: existing.credential_id, type: 'public-key', transports: ['usb'] },
    ]);
  });
});

describe('authenticationOptions', () => {
  it('offers no credentials at sign-in, where the passkey is discoverable', async () => {
    const options = await authenticationOptions(CONSOLE_CONFIG);
    expect([options.rpId, options.userVerification, options.allowCredentials]).toEqual(['assess.example.gov.au', 'required', undefined]);
  });

  it('offers the user’s own passkeys for a confirmation', async () => {
    const own = buildPasskey();
    expect((await authenticationOptions(CONSOLE_CONFIG, [own])).allowCredentials).toEqual([
      { id: own.credential_id, type: 'public-key', transports: ['internal'] },
    ]);
  });
});

describe('registration and assertion', () => {
  const user = buildUser();
  const ceremony: Ceremony = { purpose: 'enrol', challenge: CHALLENGE, expires_at: '2026-01-01T00:05:00.000Z', user_id: user.id };
  const registered = async () => {
    const key = softPasskey(user.id);
    const response = key.register({ challenge: CHALLENGE, rp: { id: CONSOLE_CONFIG.rpId } }, CONSOLE_CONFIG.origin);
    return { key, passkey: await verifiedRegistration(CONSOLE_CONFIG, ceremony, response, user, 'Laptop', now) };
  };

  describe('verifiedRegistration', () => {
    it('answers the new passkey of a user-verified credential made for the challenge', async () => {
      const { key, passkey } = await registered();
      expect(passkey).toEqual({
        id: expect.stringMatching(/^[0-9A-Z]{26}$/),
        user_id: user.id,
        credential_id: key.credentialId.toString('base64url'),
        public_key: expect.stringMatching(/^[A-Za-z0-9_-]+$/),
        counter: 0,
        transports: ['internal'],
        name: 'Laptop',
        created_at: now.toISOString(),
        backed_up: false,
      });
    });

    it('refuses a credential made for another challenge', async () => {
      const response = softPasskey(user.id).register({ challenge: 'b3RoZXI', rp: { id: CONSOLE_CONFIG.rpId } }, CONSOLE_CONFIG.origin);
      expect(await verifiedRegistration(CONSOLE_CONFIG, ceremony, response, user, 'Laptop', now)).toBeUndefined();
    });

    it('refuses a credential made for another origin', async () => {
      const response = softPasskey(user.id).register({ challenge: CHALLENGE, rp: { id: CONSOLE_CONFIG.rpId } }, 'https://phish.example');
      expect(await verifiedRegistration(CONSOLE_CONFIG, ceremony, response, user, 'Laptop', now)).toBeUndefined();
    });

    it('refuses a credential id too short to be one an authenticator made', async () => {
      const key = softPasskey(user.id);
      key.credentialId = Buffer.alloc(8, 1);
      const response = key.register({ challenge: CHALLENGE, rp: { id: CONSOLE_CONFIG.rpId } }, CONSOLE_CONFIG.origin);
      expect(await verifiedRegistration(CONSOLE_CONFIG, ceremony, response, user, 'Laptop', now)).toBeUndefined();
    });

    it('answers nothing for a response that is no registration at all', async () => {
      expect(await verifiedRegistration(CONSOLE_CONFIG, ceremony, { id: 'x' }, user, 'Laptop', now)).toBeUndefined();
    });
  });

  describe('verifiedAssertion', () => {
    const signIn: Ceremony = { purpose: 'sign-in', challenge: CHALLENGE, expires_at: '2026-01-01T00:05:00.000Z' };

    it('answers the authenticator’s new counter for a user-verified assertion of the challenge', async () => {
      const { key, passkey } = await registered();
      const response = key.assert({ challenge: CHALLENGE, rpId: CONSOLE_CONFIG.rpId }, CONSOLE_CONFIG.origin);
      expect(await verifiedAssertion(CONSOLE_CONFIG, signIn, response, passkey!)).toBe(1);
    });

    it('refuses an assertion without user verification', async () => {
      const { key, passkey } = await registered();
      const response = key.assert({ challenge: CHALLENGE, rpId: CONSOLE_CONFIG.rpId }, CONSOLE_CONFIG.origin, { userVerified: false });
      expect(await verifiedAssertion(CONSOLE_CONFIG, signIn, response, passkey!)).toBeUndefined();
    });

    it('refuses an assertion signed by another key than the passkey’s', async () => {
      const { key, passkey } = await registered();
      const other = (await registered()).passkey!;
      const response = key.assert({ challenge: CHALLENGE, rpId: CONSOLE_CONFIG.rpId }, CONSOLE_CONFIG.origin);
      expect(await verifiedAssertion(CONSOLE_CONFIG, signIn, response, { ...passkey!, public_key: other.public_key })).toBeUndefined();
    });

    it('refuses an assertion of another challenge', async () => {
      const { key, passkey } = await registered();
      const response = key.assert({ challenge: 'b3RoZXI', rpId: CONSOLE_CONFIG.rpId }, CONSOLE_CONFIG.origin);
      expect(await verifiedAssertion(CONSOLE_CONFIG, signIn, response, passkey!)).toBeUndefined();
    });
  });
});

describe('claimedPasskey', () => {
  const userId = '01M84T2AZS9C8TZ6EGZG2RXYHA';
  const credentialId = 'Y3JlZGVudGlhbC1pZC1vZi1zb21lLWtleQ';
  const assertion = (id: unknown, userHandle: unknown) => ({ id, response: { userHandle } });

  it('answers the user handle and credential id the assertion carries', () => {
    expect(claimedPasskey(assertion(credentialId, Buffer.from(userId).toString('base64url')))).toEqual({ userId, credentialId });
  });

  it.each([
    ['no object', null],
    ['a credential id of the wrong shape', assertion('short', Buffer.from(userId).toString('base64url'))],
    ['no user handle', assertion(credentialId, undefined)],
    ['a user handle that is not base64url', assertion(credentialId, 'a+b/')],
    ['a user handle that is no ULID', assertion(credentialId, Buffer.from('someone').toString('base64url'))],
  ])('answers nothing for %s', (_label, response) => {
    expect(claimedPasskey(response)).toBeUndefined();
  });
});
