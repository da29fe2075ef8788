import { writeAudit } from '../../store/audit.js';
import { listPasskeys, PasskeyRefusedError, removePasskey } from '../../store/passkeys.js';
import { consolePath } from '../config.js';
import { redirect, type ConsoleResponse } from '../http.js';
import { PasskeysPage } from '../pages/passkeys.js';
import { html, type Route, type SessionContext } from '../route.js';

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

/** The passkey list and removal; registering one is a ceremony, the passkeys function's (ceremonies.tsx). */
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
  { method: 'POST', path: '/passkeys/{passkey}/remove', gate: 'session', confirm: 'remove a passkey', handle: remove },
];
