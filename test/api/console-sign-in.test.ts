import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserAs, reEnrolAs, setStatusAs } from '../../lib/auth/administration.js';
import { keys } from '../../lib/store/keys.js';
import { getOne, queryAll } from '../../lib/store/read.js';
import { updateIf } from '../../lib/store/update.js';
import { itemPresent } from '../../lib/store/conditions.js';
import { sha256 } from '../../lib/console/session.js';
import { resetSettings } from '../../lib/config.js';
import { type Api, startApi } from '../support/api.js';
import { auditRecords } from '../support/audit.js';
import { consoleClient, enrolWith, signInWith, softPasskey } from '../support/console.js';
import { consoleUser, useConsoleOrigin } from '../support/console-users.js';

const OPERATOR = { kind: 'operator' } as const;
const cli = { request_id: 'test', method: 'CLI', route: 'test' };

let api: Api;
beforeAll(async () => {
  api = await startApi({ CONSOLE_SIGN_IN_RATE_LIMIT_PER_MINUTE: '1000' });
  useConsoleOrigin(api.base);
});
afterAll(() => api.stop());

const newUser = (now = new Date()) =>
  createUserAs(OPERATOR, { email: `${Math.random().toString(36).slice(2)}@test.invalid`, name: 'New Person', superUser: false }, cli, now);
const sessionCookie = (client: ReturnType<typeof consoleClient>) => client.jar.get('__Host-aop_session');

describe('console enrolment', () => {
  it('registers a passkey from the one-time link and signs the person in with a __Host- session cookie', async () => {
    const { user, enrolment } = await newUser();
    const client = consoleClient(api.base);
    const answer = await enrolWith(client, enrolment.secret, softPasskey(user.id), api.base);
    expect(answer.status).toBe(200);
    const cookie = answer.headers.getSetCookie().find((c) => c.startsWith('__Host-aop_session='))!;
    expect(cookie).toMatch(/; Path=\/; Secure; HttpOnly; SameSite=Strict; Max-Age=\d+$/);
    expect((await client.get('/')).text).toContain('Your tokens');
  });

  it('refuses the same link a second time', async () => {
    const { user, enrolment } = await newUser();
    await enrolWith(consoleClient(api.base), enrolment.secret, softPasskey(user.id), api.base);
    const again = await enrolWith(consoleClient(api.base), enrolment.secret, softPasskey(user.id), api.base);
    expect(again.status).toBe(400);
    expect(again.json.code).toBe('enrolment_link_invalid');
  });

  it('refuses a link older than its lifetime', async () => {
    const { user, enrolment } = await newUser(new Date(Date.now() - 25 * 3_600_000));
    const answer = await enrolWith(consoleClient(api.base), enrolment.secret, softPasskey(user.id), api.base);
    expect(answer.json.code).toBe('enrolment_link_invalid');
  });

  it('keeps only the hash of the link, and only the newest link enrols', async () => {
    const { user, enrolment } = await newUser();
    const stored = await getOne(keys.enrolmentLink(user.id));
    expect(JSON.stringify(stored)).not.toContain(enrolment.secret.slice(27));
    const newer = await reEnrolAs(OPERATOR, user.id, cli, new Date());
    expect((await enrolWith(consoleClient(api.base), enrolment.secret, softPasskey(user.id), api.base)).json.code).toBe('enrolment_link_invalid');
    expect((await enrolWith(consoleClient(api.base), newer.secret, softPasskey(user.id), api.base)).status).toBe(200);
  });
});

describe('console sign-in', () => {
  it('signs in with a registered passkey and audits it without credential id material', async () => {
    const { user, passkey } = await consoleUser(api.base);
    const client = consoleClient(api.base);
    const answer = await signInWith(client, passkey, api.base);
    expect(answer.status).toBe(200);
    expect(answer.json.redirect).toBe('/console/');
    const events = (await auditRecords('installation')).filter((r) => r.kind === 'CONSOLE_SIGNED_IN' && r.actor_id === user.id);
    expect(events.length).toBeGreaterThan(0);
    expect(JSON.stringify(events)).not.toContain(passkey.credentialId.toString('base64url'));
  });

  it('refuses an assertion without user verification', async () => {
    const { passkey } = await consoleUser(api.base);
    const answer = await signInWith(consoleClient(api.base), passkey, api.base, { userVerified: false });
    expect(answer.status).toBe(401);
    expect(answer.json.code).toBe('sign_in_failed');
  });

  it('refuses an assertion made for another origin', async () => {
    const { passkey } = await consoleUser(api.base);
    const client = consoleClient(api.base);
    const options = await client.postJson('/sign-in/options');
    const answer = await client.postJson('/sign-in', { response: passkey.assert(options.json, 'https://phish.example') });
    expect(answer.status).toBe(401);
  });

  it('refuses a replayed assertion: its challenge was spent', async () => {
    const { passkey } = await consoleUser(api.base);
    const client = consoleClient(api.base);
    const options = await client.postJson('/sign-in/options');
    const response = passkey.assert(options.json, api.base);
    expect((await client.postJson('/sign-in', { response })).status).toBe(200);
    const replay = consoleClient(api.base);
    await replay.postJson('/sign-in/options');
    expect((await replay.postJson('/sign-in', { response })).status).toBe(401);
  });

  it('refuses a disabled user and ends the sessions they had', async () => {
    const { user, client, passkey } = await consoleUser(api.base);
    await setStatusAs(OPERATOR, user.id, 'disabled', cli, new Date());
    const page = await client.get('/');
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/console/sign-in');
    expect((await signInWith(consoleClient(api.base), passkey, api.base)).status).toBe(401);
  });

  it('answers 429 with Retry-After once an address spends its sign-in attempts', async () => {
    // The budget is a fixed one-minute window: stay clear of its end, then allow two more attempts than already counted.
    while (Date.now() % 60_000 > 55_000) await new Promise((r) => setTimeout(r, 500));
    const window = Math.floor(Date.now() / 60_000);
    const counted = Number((await getOne(keys.rateWindow('console-sign-in', '127.0.0.1', window)))?.count ?? 0);
    process.env.CONSOLE_SIGN_IN_RATE_LIMIT_PER_MINUTE = String(counted + 2);
    resetSettings();
    try {
      const client = consoleClient(api.base);
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await client.postJson('/sign-in/options'));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
      expect(answers[2]!.json.code).toBe('too_many_attempts');
      expect(Number(answers[2]!.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      process.env.CONSOLE_SIGN_IN_RATE_LIMIT_PER_MINUTE = '1000';
      resetSettings();
    }
  });
});

describe('console sessions', () => {
  it('ends the session at sign-out: the cookie no longer opens a page', async () => {
    const { client } = await consoleUser(api.base);
    const cookie = sessionCookie(client)!;
    const out = await client.postForm('/sign-out', { csrf: client.csrf() });
    expect(out.status).toBe(303);
    expect(await getOne(keys.consoleSession(sha256(cookie)))).toBeUndefined();
  });

  it('ends a session idle for longer than the idle timeout', async () => {
    const { client } = await consoleUser(api.base);
    const key = keys.consoleSession(sha256(sessionCookie(client)!));
    await updateIf(key, { last_seen_at: new Date(Date.now() - 31 * 60_000).toISOString() }, itemPresent());
    expect((await client.get('/')).status).toBe(303);
    expect(await getOne(key)).toBeUndefined();
  });

  it('ends a session past its absolute timeout, however active', async () => {
    const { client } = await consoleUser(api.base);
    const key = keys.consoleSession(sha256(sessionCookie(client)!));
    await updateIf(key, { expires_at: new Date(Date.now() - 1000).toISOString() }, itemPresent());
    expect((await client.get('/')).status).toBe(303);
  });

  it('keeps no cookie value in the table: sessions are found by its hash', async () => {
    const { client, user } = await consoleUser(api.base);
    const session = await getOne(keys.consoleSession(sha256(sessionCookie(client)!)));
    expect(session?.user_id).toBe(user.id);
    expect(JSON.stringify(session)).not.toContain(sessionCookie(client)!);
  });

  it('ends the sessions and removes the passkeys of a re-enrolled user', async () => {
    const { client, user } = await consoleUser(api.base);
    await reEnrolAs(OPERATOR, user.id, cli, new Date());
    expect((await client.get('/')).status).toBe(303);
    const passkeys = await queryAll({
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
      ExpressionAttributeValues: { ':pk': `USER#${user.id}`, ':sk': 'PASSKEY#' },
    });
    expect(passkeys).toEqual([]);
  });
});
