import { timingSafeEqual } from 'node:crypto';
import { settings } from '../../config.js';
import { enrolmentLinkHash } from '../../auth/administration.js';
import { singleLine, once } from '../../domain/validation.js';
import { writeAudit, writeSampledRateLimitAudit } from '../../store/audit.js';
import { confirmSession, getEnrolmentLink, spendEnrolmentLinkWrite, type EnrolmentLink } from '../../store/console.js';
import { getUser, type UserRecord } from '../../store/identity.js';
import { addPasskeyWrites, getPasskey, listPasskeys, PasskeyRefusedError, recordPasskeyUse } from '../../store/passkeys.js';
import { countHits } from '../../store/rate-limits.js';
import { commit } from '../../store/transact.js';
import { consolePath } from '../config.js';
import { json, jsonOf, problem, type ConsoleRequest, type ConsoleResponse } from '../http.js';
import type { ConsoleFunction, Route, RouteContext, SessionContext } from '../route.js';
import { CEREMONY_COOKIE, clearCookie, startSession } from '../session.js';
import {
  authenticationOptions,
  beginCeremony,
  claimedPasskey,
  registrationOptions,
  spendCeremony,
  verifiedAssertion,
  verifiedRegistration,
} from '../webauthn.js';

/**
 * The WebAuthn ceremonies: every console route that needs @simplewebauthn/server, and with it the
 * X.509 and ASN.1 stack, to make a challenge or check an answer. They are the passkeys function's
 * (functions/http/passkeys.ts), so that the console function serving pages, sessions and tokens
 * carries none of that code; the gateway sends these routes there (infra/api-stack.ts).
 */
const PasskeyName = once(() => singleLine().trim().min(1, 'must not be empty').max(100));

/** The name a person gives a passkey they register, or the 422 that refuses it. */
function passkeyName(value: unknown, request: ConsoleRequest): { name: string } | { refused: ConsoleResponse } {
  const name = PasskeyName().safeParse(value);
  return name.success ? { name: name.data } : { refused: problem(422, 'invalid_name', 'Name the passkey (up to 100 characters, one line).', request) };
}

/** Sign-in and enrolment are the only ceremonies a stranger reaches: each attempt is counted per IP. */
async function overBudget(ctx: RouteContext): Promise<ConsoleResponse | undefined> {
  const [count] = await countHits({ budget: 'console-sign-in', subject: ctx.request.sourceIp }, ctx.now);
  if (count && count.count > settings().CONSOLE_SIGN_IN_RATE_LIMIT_PER_MINUTE) {
    // Events part 2: repeated 429s are audited once per IP and minute.
    await writeSampledRateLimitAudit({ ...ctx.audit, kind: 'CONSOLE_SIGN_IN_RATE_LIMITED', status: 429 }, ctx.now);
    return problem(429, 'too_many_attempts', 'Too many sign-in attempts from this address: wait a minute.', ctx.request, {
      'Retry-After': String(count.resetSeconds),
    });
  }
  return undefined;
}

const failed = async (ctx: RouteContext, reason: string, status = 401) => {
  await writeAudit({ ...ctx.audit, kind: 'CONSOLE_SIGN_IN_FAILED', status, details: { reason } }, ctx.now);
  return problem(status, 'sign_in_failed', 'The passkey could not sign you in. Try again, or use another passkey.', ctx.request);
};

const signedInAnswer = (ctx: RouteContext, sessionCookie: string) =>
  json(200, { redirect: consolePath(ctx.config, '/') }, [sessionCookie, clearCookie(CEREMONY_COOKIE)]);

async function signIn(ctx: RouteContext): Promise<ConsoleResponse> {
  const limited = await overBudget(ctx);
  if (limited) return limited;
  const body = jsonOf(ctx.request);
  const ceremony = await spendCeremony(ctx.request, 'sign-in', ctx.now);
  if (!ceremony) return failed(ctx, 'no_ceremony', 400);
  const claimed = claimedPasskey(body?.response);
  const passkey = claimed && (await getPasskey(claimed.userId, claimed.credentialId));
  const user = passkey && (await getUser(passkey.user_id));
  if (!passkey || user?.status !== 'active') return failed(ctx, 'unknown_passkey');
  const counter = await verifiedAssertion(ctx.config, ceremony, body?.response, passkey);
  if (counter === undefined || !(await recordPasskeyUse(passkey, counter, ctx.now))) return failed(ctx, 'assertion_refused');
  const cookie = await startSession(user, ctx.config, ctx.now);
  await writeAudit({ ...ctx.audit, kind: 'CONSOLE_SIGNED_IN', status: 200, actor_id: user.id, details: { passkey_id: passkey.id } }, ctx.now);
  return signedInAnswer(ctx, cookie);
}

/** The link `<user id>.<secret>` when it is the user's open link, unexpired, for an active user. */
async function openLink(raw: unknown, now: Date): Promise<{ user: UserRecord; link: EnrolmentLink } | undefined> {
  if (typeof raw !== 'string' || !/^[0-9A-HJKMNP-TV-Z]{26}\.[A-Za-z0-9_-]{43}$/.test(raw)) return undefined;
  const userId = raw.slice(0, 26);
  const [user, link] = await Promise.all([getUser(userId), getEnrolmentLink(userId)]);
  if (user?.status !== 'active' || !link || Date.parse(link.expires_at) <= now.getTime()) return undefined;
  const presented = Buffer.from(enrolmentLinkHash(raw));
  const stored = Buffer.from(link.link_hash);
  return presented.length === stored.length && timingSafeEqual(presented, stored) ? { user, link } : undefined;
}

const linkRefused = (ctx: RouteContext) =>
  problem(
    400,
    'enrolment_link_invalid',
    'This enrolment link cannot be used: it was used already, replaced by a newer one, or has expired. Ask an administrator for a new link.',
    ctx.request,
  );

async function enrolOptions(ctx: RouteContext): Promise<ConsoleResponse> {
  const limited = await overBudget(ctx);
  if (limited) return limited;
  const open = await openLink(jsonOf(ctx.request)?.link, ctx.now);
  if (!open) return linkRefused(ctx);
  const options = await registrationOptions(ctx.config, open.user, await listPasskeys(open.user.id));
  const cookie = await beginCeremony('enrol', options.challenge, ctx.now, { user_id: open.user.id });
  return json(200, { options, user: { name: open.user.name, email: open.user.email } }, [cookie]);
}

async function enrol(ctx: RouteContext): Promise<ConsoleResponse> {
  const limited = await overBudget(ctx);
  if (limited) return limited;
  const body = jsonOf(ctx.request);
  const named = passkeyName(body?.name, ctx.request);
  if ('refused' in named) return named.refused;
  const ceremony = await spendCeremony(ctx.request, 'enrol', ctx.now);
  const open = await openLink(body?.link, ctx.now);
  if (!ceremony || !open || ceremony.user_id !== open.user.id) return linkRefused(ctx);
  const passkey = await verifiedRegistration(ctx.config, ceremony, body?.response, open.user, named.name, ctx.now);
  if (!passkey) return problem(400, 'registration_refused', 'The passkey could not be registered. Try again.', ctx.request);
  try {
    await commit([...addPasskeyWrites(passkey, 'active'), spendEnrolmentLinkWrite(open.link, () => new PasskeyRefusedError('link spent'))]);
  } catch (error) {
    if (error instanceof PasskeyRefusedError) return linkRefused(ctx);
    throw error;
  }
  await writeAudit(
    { ...ctx.audit, kind: 'PASSKEY_REGISTERED', status: 200, actor_id: open.user.id, details: { passkey_id: passkey.id, via: 'enrolment' } },
    ctx.now,
  );
  const cookie = await startSession(open.user, ctx.config, ctx.now);
  return signedInAnswer(ctx, cookie);
}

/** A ceremony begun in this session, for this person: another session's challenge completes nothing here. */
const bound = (ctx: SessionContext) => ({ user_id: ctx.signedIn.user.id, session_hash: ctx.signedIn.hash });

async function register(ctx: SessionContext): Promise<ConsoleResponse> {
  const body = jsonOf(ctx.request);
  const named = passkeyName(body?.name, ctx.request);
  if ('refused' in named) return named.refused;
  const ceremony = await spendCeremony(ctx.request, 'register', ctx.now);
  if (!ceremony || ceremony.session_hash !== ctx.signedIn.hash) return problem(400, 'ceremony_expired', 'Start the registration again.', ctx.request);
  const passkey = await verifiedRegistration(ctx.config, ceremony, body?.response, ctx.signedIn.user, named.name, ctx.now);
  if (!passkey) return problem(400, 'registration_refused', 'The passkey could not be registered. Try again.', ctx.request);
  try {
    await commit(addPasskeyWrites(passkey, 'active'));
  } catch (error) {
    if (error instanceof PasskeyRefusedError) return problem(409, 'passkey_exists', error.message, ctx.request);
    throw error;
  }
  await writeAudit({ ...ctx.audit, kind: 'PASSKEY_REGISTERED', status: 200, actor_id: ctx.signedIn.user.id, details: { passkey_id: passkey.id } }, ctx.now);
  return json(200, { redirect: consolePath(ctx.config, '/passkeys?registered=1') }, [clearCookie(CEREMONY_COOKIE)]);
}

/** A passkey assertion of the signed-in person renews the session's confirmation. */
async function confirm(ctx: SessionContext): Promise<ConsoleResponse> {
  const body = jsonOf(ctx.request);
  const ceremony = await spendCeremony(ctx.request, 'confirm', ctx.now);
  const claimed = claimedPasskey(body?.response);
  const refused = () => problem(401, 'confirmation_failed', 'The passkey could not confirm it is you. Try again.', ctx.request);
  if (!ceremony || ceremony.session_hash !== ctx.signedIn.hash || claimed?.userId !== ctx.signedIn.user.id) return refused();
  const passkey = await getPasskey(claimed.userId, claimed.credentialId);
  const counter = passkey && (await verifiedAssertion(ctx.config, ceremony, body?.response, passkey));
  if (!passkey || counter === undefined || !(await recordPasskeyUse(passkey, counter, ctx.now))) return refused();
  await confirmSession(ctx.signedIn.hash, ctx.now);
  await writeAudit({ ...ctx.audit, kind: 'CONSOLE_CONFIRMED', status: 200, actor_id: ctx.signedIn.user.id, details: { passkey_id: passkey.id } }, ctx.now);
  return json(200, { confirmed: true }, [clearCookie(CEREMONY_COOKIE)]);
}

const ceremonyRoutes: Route[] = [
  {
    method: 'POST',
    path: '/sign-in/options',
    gate: 'public',
    json: true,
    handle: async (ctx) => {
      const limited = await overBudget(ctx);
      if (limited) return limited;
      const options = await authenticationOptions(ctx.config);
      return json(200, options, [await beginCeremony('sign-in', options.challenge, ctx.now)]);
    },
  },
  { method: 'POST', path: '/sign-in', gate: 'public', json: true, handle: signIn },
  { method: 'POST', path: '/enrol/options', gate: 'public', json: true, handle: enrolOptions },
  { method: 'POST', path: '/enrol', gate: 'public', json: true, handle: enrol },
  {
    method: 'POST',
    path: '/passkeys/options',
    gate: 'session',
    json: true,
    confirm: 'register a passkey',
    handle: async (ctx) => {
      const options = await registrationOptions(ctx.config, ctx.signedIn.user, await listPasskeys(ctx.signedIn.user.id));
      return json(200, options, [await beginCeremony('register', options.challenge, ctx.now, bound(ctx))]);
    },
  },
  { method: 'POST', path: '/passkeys', gate: 'session', json: true, confirm: 'register a passkey', handle: register },
  {
    method: 'POST',
    path: '/confirm/options',
    gate: 'session',
    json: true,
    handle: async (ctx) => {
      const options = await authenticationOptions(ctx.config, await listPasskeys(ctx.signedIn.user.id));
      return json(200, options, [await beginCeremony('confirm', options.challenge, ctx.now, bound(ctx))]);
    },
  },
  { method: 'POST', path: '/confirm', gate: 'session', json: true, handle: confirm },
];

export const passkeyCeremonies: ConsoleFunction = { name: 'http/passkeys', routes: ceremonyRoutes };
