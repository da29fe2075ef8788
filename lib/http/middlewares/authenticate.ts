import { storedCredentialValid } from '../../auth/issuance.js';
import { tokenMatches } from '../../auth/tokens.js';
import { tokenHashSecret } from '../../auth/secret.js';
import { asToken, asUser, recordTokenUse, tokenUseIsStale, type TokenRecord } from '../../store/identity.js';
import { keys, type Key } from '../../store/keys.js';
import { keyString } from '../../store/read.js';
import { countHits } from '../../store/rate-limits.js';
import { callerHits, takeBackCallerHits, withLimit } from '../budgets.js';
import { unauthorized } from '../../errors.js';
import { confirmLive, forgetLive } from '../live-credentials.js';
import { matched, type Middleware, type PipelineRequest } from '../state.js';

/** The stored token and its expiry when the credential authenticates; undefined for any failure. */
async function verify(request: PipelineRequest): Promise<{ token: TokenRecord; expiresAt: number } | undefined> {
  const { state } = request;
  const claims = state.claims;
  if (!state.token || !claims) return undefined;
  const item = (k: Key) => state.items?.get(keyString(k));
  const token = asToken(item(keys.token(claims.tokenId)));
  if (!token || !tokenMatches(state.token, token.secret_hash, await tokenHashSecret())) return undefined;
  const expiresAt = Date.parse(token.expires_at);
  if (expiresAt <= state.startedAt.getTime()) return undefined;
  if (!storedCredentialValid(token)) return undefined;
  const user = asUser(item(keys.user(claims.userId)));
  if (user?.status !== 'active' || token.user_id !== user.id) return undefined;
  return { token, expiresAt };
}

/**
 * Step 3: the bearer token, looked up by its id and compared in constant time with the stored
 * keyed hash; expiry; grants and binding that would still be issued today; the actor's status.
 * Every failure is the same 401, with no hint which. Only then are the caller's budgets charged
 * (step 6 enforces them): a dead credential costs its actor and organisation nothing, and only
 * then is its last use written.
 */
export function authenticate(): Middleware {
  return {
    before: async (request) => {
      const { state } = request;
      const claims = state.claims;
      const verified = await verify(request);
      const mode = matched(request).mode;
      if (verified === undefined) {
        if (claims) forgetLive(claims.tokenId);
        await takeBackCallerHits(state, mode);
        throw unauthorized();
      }
      confirmLive(claims!.tokenId, verified.expiresAt, state.startedAt.getTime());
      // The console shows when a token was last used; written once an hour at most, beside the budgets.
      const use = tokenUseIsStale(verified.token, state.startedAt) ? recordTokenUse(verified.token.id, state.startedAt) : undefined;
      if (state.callerCountedAt) {
        await use;
        return;
      }
      const [counts] = await Promise.all([Promise.all(callerHits(mode, claims!).map((hit) => countHits(hit, state.startedAt))), use]);
      state.callerCountedAt = state.startedAt;
      state.budgets = [...(state.budgets ?? []), ...counts.flat().map(withLimit)];
    },
  };
}
