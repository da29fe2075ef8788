import { tooManyRequests } from '../../errors.js';
import { takeBackCallerHits } from '../budgets.js';
import { matched, type BudgetCount, type Middleware, type PipelineRequest } from '../state.js';

function enforce(request: PipelineRequest, select: (b: BudgetCount) => boolean): void {
  const budgets = (request.state.budgets ?? []).filter(select);
  if (budgets.length === 0) return;
  advertise(request, budgets);
  const spent = budgets.find((b) => b.count > b.limit);
  if (spent) throw tooManyRequests(Math.max(1, spent.resetSeconds), spent.budget.replace('-', ' '));
}

/**
 * IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers): every budget that applies
 * as a policy, and the one closest to running out as the current limit.
 */
function advertise(request: PipelineRequest, budgets: BudgetCount[]): void {
  const tightest = budgets.reduce((a, b) => (b.limit - b.count < a.limit - a.count ? b : a));
  request.state.responseHeaders['RateLimit-Policy'] = budgets.map((b) => `"${b.budget}";q=${b.limit};w=60`).join(', ');
  request.state.responseHeaders.RateLimit = `"${tightest.budget}";r=${Math.max(0, tightest.limit - tightest.count)};t=${tightest.resetSeconds}`;
}

/** Step 2: the per-IP ingress budget, decided before the credential is looked at. */
export function ingressLimit(): Middleware {
  return {
    before: async (request) => {
      try {
        enforce(request, (b) => b.budget === 'ingress');
      } catch (error) {
        // Refused before authentication: caller hits counted on expectation are taken back.
        if (request.state.callerCountedAt) await takeBackCallerHits(request.state, matched(request).mode);
        throw error;
      }
    },
  };
}

/** Step 6: credential, actor and organisation budgets of the operation's class. */
export function callerBudgets(): Middleware {
  return { before: (request) => enforce(request, (b) => b.budget !== 'ingress') };
}
