import { settings } from '../config.js';
import type { TokenClaims } from '../auth/tokens.js';

/** The seven per-minute budgets of the seed's Limits part, by operation class. */
export type Budget = 'ingress' | 'credential' | 'actor' | 'organisation';

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

export interface BudgetSubject {
  budget: string;
  subject: string;
  limit: number;
}

/**
 * The counters one request touches. Administration credentials carry no organisation, so only
 * their credential and actor budgets apply (seed: they count against the actor budget).
 */
export function budgetsFor(mode: 'read' | 'mutation', ip: string, claims: TokenClaims | undefined): BudgetSubject[] {
  const s = settings();
  const out: BudgetSubject[] = [{ budget: 'ingress', subject: ip, limit: s.API_INGRESS_RATE_LIMIT_PER_MINUTE }];
  if (!claims) return out;
  const names = SETTING[mode];
  out.push({ budget: `${mode}-credential`, subject: claims.tokenId, limit: s[names.credential] });
  out.push({ budget: `${mode}-actor`, subject: claims.userId, limit: s[names.actor] });
  if (claims.organisationId) out.push({ budget: `${mode}-organisation`, subject: claims.organisationId, limit: s[names.organisation] });
  return out;
}
