import { writeAudit } from '../../store/audit.js';
import { confirmSession } from '../../store/console.js';
import { addPasskeyWrites, getPasskey, listPasskeys, PasskeyRefusedError, recordPasskeyUse, removePasskey } from '../../store/passkeys.js';
import { commit } from '../../store/transact.js';
import { consolePath } from '../config.js';
import { json, jsonOf, problem, redirect, type ConsoleResponse } from '../http.js';
import { PasskeysPage } from '../pages/passkeys.js';
import { html, type Route, type SessionContext } from '../route.js';
import { clearCookie, CEREMONY_COOKIE } from '../session.js';
import {
  authenticationOptions,
  beginCeremony,
  claimedPasskey,
  registrationOptions,
  spendCeremony,
  verifiedAssertion,
  verifiedRegistration,
} from '../webauthn.js';
import { passkeyName } from './sign-in.js';

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

async function remove(ctx: SessionContext): Promise<ConsoleResponse> {
  const passkey = (await listPasskeys(ctx.signedIn.user.id)).find((p) => p.id === ctx.params.passkey);
  if (!passkey) return redirect(consolePath(ctx.config, '/passkeys'));
  try {
    await removePasskey(passkey);
  } catch (error) {
    if (!(error instanceof PasskeyRefusedError)) throw error;
    return html(<PasskeysPage ctx={ctx.page} passkeys={await listPasskeys(ctx.signedIn.user.id)} notice={error.message} />, 409);
  }
  await writeAudit({ ...ctx.audit, kind: 'PASSKEY_REMOVED', status: 303, actor_id: ctx.signedIn.user.id, details: { passkey_id: passkey.id } }, ctx.now);
  return redirect(consolePath(ctx.config, '/passkeys?removed=1'));
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

export const passkeyRoutes: Route[] = [
  {
    method: 'GET',
    path: '/passkeys',
    gate: 'session',
    handle: async (ctx) => {
      const q = ctx.request.query;
      const notice = q.get('registered') ? 'The passkey is registered.' : q.get('removed') ? 'The passkey is removed.' : undefined;
      return html(<PasskeysPage ctx={ctx.page} passkeys={await listPasskeys(ctx.signedIn.user.id)} notice={notice} />);
    },
  },
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
  { method: 'POST', path: '/passkeys/{passkey}/remove', gate: 'session', confirm: 'remove a passkey', handle: remove },
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
