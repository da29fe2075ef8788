import { describe, expect, it } from 'vitest';
import { newUlid } from '../../../lib/domain/ids.js';
import { IssuanceError, issuerShortfall, validateIssuance, type IssuanceRequest } from '../../../lib/auth/issuance.js';

const now = new Date('2026-11-22T00:00:00Z');
const lifetimes = { projectReadOnlyDays: 90, projectMutationDays: 30, organisationDays: 30, administrationDays: 30 };
const project = newUlid();
const base: IssuanceRequest = { token_type: 'project', project_id: project, name: 'ci', abilities: ['view-controls'], read_only: true };

function reason(req: IssuanceRequest): string {
  try {
    validateIssuance(req, now, lifetimes);
  } catch (error) {
    if (error instanceof IssuanceError) return error.reason;
    throw error;
  }
  return 'accepted';
}

const days = (n: number) => new Date(now.getTime() + n * 86_400_000).toISOString();

describe('validateIssuance', () => {
  it('accepts a well-formed project credential and stores its mode', () => {
    const v = validateIssuance(base, now, lifetimes);
    expect(v).toMatchObject({ type: 'project', projectId: project, readOnly: true, abilities: ['view-controls'] });
  });

  it.each([
    ['a missing mode', { read_only: undefined }, 'missing_mode'],
    ['a mode that is not a boolean', { read_only: 'true' }, 'missing_mode'],
    ['an unknown token type', { token_type: 'personal' }, 'invalid_token_type'],
    ['a project credential without a project', { project_id: undefined }, 'malformed_binding'],
    ['a project id that is not a ULID', { project_id: 'p-1' }, 'malformed_binding'],
    ['a project credential bound to an organisation too', { organisation_id: newUlid() }, 'malformed_binding'],
    ['empty abilities', { abilities: [] }, 'empty_abilities'],
    ['abilities that are not a list', { abilities: 'view-controls' }, 'empty_abilities'],
    ['an unknown ability', { abilities: ['view-everything'] }, 'unknown_ability'],
    ['a retired ability', { abilities: ['read'] }, 'retired_ability'],
    ['a wildcard', { abilities: ['*'] }, 'wildcard_ability'],
    ['a partial wildcard', { abilities: ['view-*'] }, 'wildcard_ability'],
    ['abilities mixed with another type', { abilities: ['view-controls', 'manage-org-hierarchy'] }, 'mixed_abilities'],
    ['abilities of another type only', { abilities: ['manage-org-hierarchy'] }, 'out_of_type_ability'],
    ['a permission without its dependency', { abilities: ['edit-control-assessment', 'view-controls'] }, 'missing_dependency'],
    ['an expiry in the past', { expires_at: days(-1) }, 'expiry_not_in_future'],
    ['an expiry that is not a timestamp', { expires_at: 'next week' }, 'invalid_expiry'],
    ['a blank name', { name: '  ' }, 'invalid_name'],
  ])('rejects %s', (_label, change, expected) => {
    expect(reason({ ...base, ...change })).toBe(expected);
  });

  it('rejects an Administration credential with a binding', () => {
    expect(reason({ token_type: 'administration', organisation_id: newUlid(), name: 'a', abilities: ['manage-org-hierarchy'], read_only: false })).toBe(
      'malformed_binding',
    );
  });

  it('rejects an organisation credential bound to a project', () => {
    expect(
      reason({ token_type: 'organisation', organisation_id: newUlid(), project_id: newUlid(), name: 'a', abilities: ['view-projects'], read_only: false }),
    ).toBe('malformed_binding');
  });

  it.each([
    ['project', true, 90],
    ['project', false, 30],
    ['organisation', true, 30],
    ['administration', false, 30],
  ] as const)('limits a %s credential (read-only %s) to %i days', (type, readOnly, max) => {
    const binding = type === 'project' ? { project_id: newUlid() } : type === 'organisation' ? { organisation_id: newUlid() } : {};
    const abilities = type === 'project' ? ['view-controls'] : type === 'organisation' ? ['view-projects'] : ['manage-org-hierarchy'];
    const req = { token_type: type, ...binding, name: 'n', abilities, read_only: readOnly };
    expect(reason({ ...req, expires_at: days(max) })).toBe('accepted');
    expect(reason({ ...req, expires_at: days(max + 1) })).toBe('expiry_beyond_lifetime');
    expect(validateIssuance(req, now, lifetimes).expiresAt.toISOString()).toBe(days(max));
  });
});

describe('issuerShortfall', () => {
  const valid = validateIssuance({ ...base, abilities: ['view-controls', 'view-control-assessment'] }, now, lifetimes);

  it('is empty when the issuer holds every selected permission', () => {
    expect(issuerShortfall(valid, new Set(['view-controls', 'view-control-assessment']))).toEqual([]);
  });

  it('names what the issuer lacks', () => {
    expect(issuerShortfall(valid, new Set(['view-controls']))).toEqual(['view-control-assessment']);
  });

  it('needs manage-org-hierarchy or manage-projects for an organisation credential', () => {
    const org = validateIssuance(
      { token_type: 'organisation', organisation_id: newUlid(), name: 'o', abilities: ['view-contacts'], read_only: true },
      now,
      lifetimes,
    );
    expect(issuerShortfall(org, new Set(['view-contacts']))).toEqual(['manage-org-hierarchy or manage-projects']);
    expect(issuerShortfall(org, new Set(['view-contacts', 'manage-projects']))).toEqual([]);
  });
});
