import { storedCredentialValid } from '../../auth/issuance.js';
import { tokenMatches } from '../../auth/tokens.js';
import { asToken, asUser } from '../../store/identity.js';
import { keys, type Key } from '../../store/keys.js';
import { keyString } from '../../store/read.js';
import { tokenHashSecret } from '../../auth/secret.js';
import { unauthorized } from '../errors.js';
import type { Middleware } from '../state.js';

/**
 * Step 3: the bearer token, looked up by its id and compared in constant time with the stored
 * keyed hash; expiry; grants and binding that would still be issued today; the actor's status.
 * Every failure is the same 401, with no hint which.
 */
export function authenticate(): Middleware {
  return {
    before: async (request) => {
      const { state } = request;
      const claims = state.claims;
      if (!state.token || !claims) throw unauthorized();
      const item = (k: Key) => state.items?.get(keyString(k));
      const token = asToken(item(keys.token(claims.tokenId)));
      if (!token || !tokenMatches(state.token, token.secret_hash, await tokenHashSecret())) throw unauthorized();
      if (Date.parse(token.expires_at) <= state.startedAt.getTime()) throw unauthorized();
      if (!storedCredentialValid(token)) throw unauthorized();
      const user = asUser(item(keys.user(claims.userId)));
      if (!user || user.status !== 'active' || token.user_id !== user.id) throw unauthorized();
    },
  };
}
