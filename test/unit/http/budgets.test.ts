import { afterEach, describe, expect, it } from 'vitest';
import { newUlid } from '../../../lib/domain/ids.js';
import { resetSettings } from '../../../lib/config.js';
import { callerHits, ingressHit, withLimit } from '../../../lib/http/budgets.js';

afterEach(() => {
  delete process.env.API_ORGANISATION_MUTATION_RATE_LIMIT_PER_MINUTE;
  resetSettings();
});

describe('budgets', () => {
  it('keeps the credential count inside its actor item and the organisation in its own', () => {
    const claims = { tokenId: newUlid(), userId: newUlid(), organisationId: newUlid() };
    expect(callerHits('read', claims)).toEqual([
      { budget: 'read-actor', subject: claims.userId, nested: [{ budget: 'read-credential', subject: claims.tokenId }] },
      { budget: 'read-organisation', subject: claims.organisationId },
    ]);
  });

  it('gives an Administration credential no organisation budget', () => {
    expect(callerHits('mutation', { tokenId: newUlid(), userId: newUlid() }).map((h) => h.budget)).toEqual(['mutation-actor']);
  });

  it('counts ingress per IP', () => {
    expect(ingressHit('203.0.113.9')).toEqual({ budget: 'ingress', subject: '203.0.113.9' });
  });

  it('attaches the configured limit of each budget', () => {
    process.env.API_ORGANISATION_MUTATION_RATE_LIMIT_PER_MINUTE = '7';
    resetSettings();
    expect(withLimit({ budget: 'mutation-organisation', count: 3, resetSeconds: 5 }).limit).toBe(7);
    expect(withLimit({ budget: 'read-credential', count: 3, resetSeconds: 5 }).limit).toBe(120);
    expect(withLimit({ budget: 'ingress', count: 3, resetSeconds: 5 }).limit).toBe(600);
  });
});
