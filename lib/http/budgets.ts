import { settings } from '../config.js';
import type { TokenClaims } from '../auth/tokens.js';
import { logger } from '../log.js';
import { uncountHits, type Count, type CounterHit } from '../store/rate-limits.js';
import type { BudgetCount, PipelineState } from './state.js';

/** The seven per-minute budgets of the seed's Limits part, by operation class. */
const SETTING = {
  read: {
    credential: 'API_READ_RATE_LIMIT_PER_MINUTE',
    actor: 'API_ACTOR_READ_RATE_LIMIT_PER_MINUTE',
    organisation: 'API_ORGANISATION_READ_RATE_LIMIT_PER_MINUTE',
  },
  mutation: {
    credential: 'API_MUTATION_RATE_LIMIT_PER_MINUTE',
    actor: 'API_ACTOR_MUTATION_RATE_LIMIT_PER_MINUTE',
    organisation: 'API_ORGANISATION_MUTATION_RATE_LIMIT_PER_MINUTE',
  },
} as const;

export type Mode = 'read' | 'mutation';

/** The per-IP budget, charged for every request before the credential is looked at. */
export const ingressHit = (ip: string): CounterHit => ({ budget: 'ingress', subject: ip });

/**
 * The counters of an authenticated caller: the actor's item (with the credential's count inside it)
 * and the organisation's. Administration credentials carry no organisation, so only their
 * credential and actor budgets apply (seed: they count against the actor budget).
 */
export function callerHits(mode: Mode, claims: TokenClaims): CounterHit[] {
  const hits: CounterHit[] = [{ budget: `${mode}-actor`, subject: claims.userId, nested: [{ budget: `${mode}-credential`, subject: claims.tokenId }] }];
  if (claims.organisationId) hits.push({ budget: `${mode}-organisation`, subject: claims.organisationId });
  return hits;
}

/** A counted hit with the configured per-minute limit of its budget. */
export const withLimit = (count: Count): BudgetCount => ({ ...count, limit: limitOf(count.budget) });

function limitOf(budget: string): number {
  const s = settings();
  if (budget === 'ingress') return s.API_INGRESS_RATE_LIMIT_PER_MINUTE;
  const [mode, scope] = budget.split('-') as [Mode, keyof (typeof SETTING)['read']];
  return s[SETTING[mode][scope]];
}

/**
 * Takes back the caller hits the load step counted before authentication (all of them, or those
 * given), for a request that did not authenticate: a failed credential, or a request that ended
 * before authentication ran. A refund that fails is logged; the window forgets it within a minute.
 */
export async function takeBackCallerHits(state: PipelineState, mode: Mode, hits = state.claims ? callerHits(mode, state.claims) : []): Promise<void> {
  const countedAt = state.callerCountedAt;
  if (!countedAt) return;
  state.callerCountedAt = undefined;
  state.budgets = state.budgets?.filter((b) => b.budget === 'ingress');
  const refunds = await Promise.allSettled(hits.map((hit) => uncountHits(hit, countedAt)));
  for (const r of refunds)
    if (r.status === 'rejected') logger.warn('could not take back a caller budget hit', { request_id: state.requestId, error: r.reason as Error });
}
