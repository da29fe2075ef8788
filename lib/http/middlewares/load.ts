import { tokenHashSecret } from '../../auth/secret.js';
import { bearerToken, verifiedClaims, type TokenClaims } from '../../auth/tokens.js';
import { keys, type Key } from '../../store/keys.js';
import { collectionString, getMany, keyString, queryCollection, type Collection, type Item } from '../../store/read.js';
import { countHits, type Count, type CounterHit } from '../../store/rate-limits.js';
import { idempotencyDigest } from '../../store/receipts.js';
import { callerHits, ingressHit, takeBackCallerHits, withLimit } from '../budgets.js';
import { header } from '../event.js';
import { expectLive } from '../live-credentials.js';
import { matched, type Middleware } from '../state.js';

/** The access record a credential's claims point at: installation, organisation or project. */
export function claimedAccessKey(claims: TokenClaims): Key {
  if (claims.projectId) return keys.projectAccess(claims.userId, claims.projectId);
  if (claims.organisationId) return keys.organisationAccess(claims.userId, claims.organisationId);
  return keys.installationAccess(claims.userId);
}

export const validIdempotencyKey = (key: string | undefined): key is string => key !== undefined && key.length >= 1 && key.length <= 255;

/**
 * Steps 2 to 6 need the token, the actor, the actor's live access, the receipt and the resource:
 * all are read here in one BatchGetItem, with the rate-limit counters updated in parallel, so that
 * a single-resource read costs one sequential round trip. Nothing read here is trusted until the
 * authentication step has verified the token's stored keyed hash, and caller budgets are counted
 * here only for a credential expected to authenticate (live-credentials.ts).
 */
export function load(): Middleware {
  return {
    before: async (request) => {
      const op = matched(request);
      const state = request.state;
      state.token = bearerToken(header(request.event, 'authorization'));
      // Only a token this server minted names whose budgets to charge; anything else is ingress only.
      const claims = state.token ? verifiedClaims(state.token, await tokenHashSecret()) : undefined;
      state.claims = claims;

      const wanted: Key[] = [];
      let collections: Collection[] = [];
      if (claims) {
        wanted.push(keys.token(claims.tokenId), keys.user(claims.userId), claimedAccessKey(claims));
        const params = op.params.safeParse(state.rawParams ?? {});
        const declared = params.success && op.prefetch ? op.prefetch(params.data, claims) : [];
        state.prefetchable = new Set(declared.map(keyString));
        wanted.push(...declared);
        collections = params.success && op.prefetchCollections ? op.prefetchCollections(params.data) : [];
        const idempotencyKey = header(request.event, 'idempotency-key');
        if (op.idempotencyKey && validIdempotencyKey(idempotencyKey)) {
          wanted.push(keys.receipt(claims.userId, idempotencyDigest(idempotencyKey)));
        }
      }
      // Caller budgets wait for authentication unless this credential authenticated here lately.
      const hits: CounterHit[] = [ingressHit(state.ip)];
      if (claims && expectLive(claims.tokenId, state.startedAt.getTime())) {
        state.callerCountedAt = state.startedAt;
        hits.push(...callerHits(op.mode, claims));
      }
      const [read, queried, ...counted] = await Promise.allSettled([
        wanted.length ? getMany(wanted) : Promise.resolve(new Map<string, Item>()),
        Promise.all(collections.map(async (c) => [collectionString(c), await queryCollection(c)] as const)),
        ...hits.map((hit) => countHits(hit, state.startedAt)),
      ]);
      const failure = [read, queried, ...counted].find((r) => r.status === 'rejected');
      if (failure) {
        // This request will not authenticate: the caller hits it did count are taken back.
        await takeBackCallerHits(
          state,
          op.mode,
          hits.slice(1).filter((_, i) => counted[i + 1]?.status === 'fulfilled'),
        );
        throw failure.reason;
      }
      state.items = (read as PromiseFulfilledResult<Map<string, Item>>).value;
      state.collections = new Map((queried as PromiseFulfilledResult<(readonly [string, Item[]])[]>).value);
      state.budgets = counted.flatMap((c) => (c as PromiseFulfilledResult<Count[]>).value).map(withLimit);
    },
  };
}
