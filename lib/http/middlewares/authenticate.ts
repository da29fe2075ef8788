import { storedCredentialValid } from '../../auth/issuance.js';
import { tokenMatches, type TokenClaims } from '../../auth/tokens.js';
import { tokenHashSecret } from '../../auth/secret.js';
import { asToken, asUser, credentialProves, recordTokenUse, tokenUseIsStale, type TokenRecord, type UserRecord } from '../../store/identity.js';
import { keys, type Key } from '../../store/keys.js';
import { keyString } from '../../store/read.js';
import { countHits } from '../../store/rate-limits.js';
import { callerHits, takeBackCallerHits, withLimit } from '../budgets.js';
import { unauthorized } from '../../errors.js';
import { confirmLive, forgetLive } from '../live-credentials.js';
import { matched, type Middleware, type PipelineRequest, type PipelineState } from '../state.js';

/** What a credential's claims name among the request's items: its stored token, valid as issued today, and actor; not yet verified. */
export interface Principal {
  claims: TokenClaims;
  token: TokenRecord;
  user: UserRecord;
}

export function principalOf(state: PipelineState): Principal | undefined {
  const claims = state.claims;
  if (!claims) return undefined;
  const item = (k: Key) => state.items?.get(keyString(k));
  const token = asToken(item(keys.token(claims.tokenId)));
  const user = asUser(item(keys.user(claims.userId)));
  return token && user && storedCredentialValid(token) ? { claims, token, user } : undefined;
}

/**
 * The principal and its token's expiry when the credential authenticates; undefined for any failure.
 * The presented secret is compared first: the stored token and actor are parsed only for the
 * credential that proves the token, so that one matching nothing is a 401 even against a broken item.
 */
async function verify(request: PipelineRequest): Promise<{ principal: Principal; expiresAt: number } | undefined> {
  const { state } = request;
  const presented = state.token;
  if (!presented || !state.claims) return undefined;
  const key = await tokenHashSecret();
  const tokenItem = state.items?.get(keyString(keys.token(state.claims.tokenId)));
  if (!credentialProves(tokenItem, (secretHash) => tokenMatches(presented, secretHash, key))) return undefined;
  const principal = principalOf(state);
  if (!principal) return undefined;
  const { token, user } = principal;
  const expiresAt = Date.parse(token.expires_at);
  if (expiresAt <= state.startedAt.getTime()) return undefined;
  if (user.status !== 'active' || token.user_id !== user.id) return undefined;
  return { principal, expiresAt };
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
      const { claims: verifiedClaims, token } = verified.principal;
      confirmLive(verifiedClaims.tokenId, verified.expiresAt, state.startedAt.getTime());
      // The console shows when a token was last used; written once an hour at most, beside the budgets.
      const use = tokenUseIsStale(token, state.startedAt) ? recordTokenUse(token.id, state.startedAt) : undefined;
      if (state.callerCountedAt) {
        await use;
        return;
      }
      const [counts] = await Promise.all([Promise.all(callerHits(mode, verifiedClaims).map((hit) => countHits(hit, state.startedAt))), use]);
      state.callerCountedAt = state.startedAt;
      state.budgets = [...(state.budgets ?? []), ...counts.flat().map(withLimit)];
    },
  };
}
