import { isValid as isUlid } from 'ulid';
import {
  CREDENTIAL_TYPES,
  RETIRED_ABILITIES,
  dependenciesOf,
  isPermission,
  permissionsOf,
  type CredentialType,
  type Permission,
} from '../domain/permissions.js';

/** The web issuance form of the seed's Authentication part 6. */
export interface IssuanceRequest {
  token_type?: unknown;
  organisation_id?: unknown;
  project_id?: unknown;
  name?: unknown;
  abilities?: unknown;
  read_only?: unknown;
  expires_at?: unknown;
}

export interface ValidIssuance {
  type: CredentialType;
  organisationId?: string;
  projectId?: string;
  name: string;
  abilities: Permission[];
  readOnly: boolean;
  expiresAt: Date;
}

export interface Lifetimes {
  projectReadOnlyDays: number;
  projectMutationDays: number;
  organisationDays: number;
  administrationDays: number;
}

export class IssuanceError extends Error {
  override readonly name = 'IssuanceError';

  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

const DAY_MS = 24 * 60 * 60 * 1000;

export function maxLifetimeDays(type: CredentialType, readOnly: boolean, l: Lifetimes): number {
  if (type === 'project') return readOnly ? l.projectReadOnlyDays : l.projectMutationDays;
  return type === 'organisation' ? l.organisationDays : l.administrationDays;
}

/** Rejects everything part 6 names: missing mode, malformed binding, empty, unknown, retired, mixed, wildcard or out-of-type grants. */
export function validateIssuance(req: IssuanceRequest, now: Date, lifetimes: Lifetimes): ValidIssuance {
  const type = req.token_type;
  if (typeof type !== 'string' || !(CREDENTIAL_TYPES as readonly string[]).includes(type)) {
    throw new IssuanceError('invalid_token_type', 'token_type must be project, organisation or administration');
  }
  const t = type as CredentialType;
  const { organisationId, projectId } = binding(t, req.organisation_id, req.project_id);

  if (typeof req.name !== 'string' || req.name.trim() === '' || req.name.length > 200) {
    throw new IssuanceError('invalid_name', 'name must be 1 to 200 characters');
  }
  if (typeof req.read_only !== 'boolean') {
    throw new IssuanceError('missing_mode', 'read_only must be given as true or false');
  }
  const abilities = checkAbilities(t, req.abilities);
  const expiresAt = expiry(req.expires_at, now, maxLifetimeDays(t, req.read_only, lifetimes));
  return { type: t, organisationId, projectId, name: req.name.trim(), abilities, readOnly: req.read_only, expiresAt };
}

function binding(type: CredentialType, org: unknown, project: unknown) {
  const malformed = (detail: string) => new IssuanceError('malformed_binding', detail);
  const present = (v: unknown) => v !== undefined && v !== null && v !== '';
  const ulidOrThrow = (v: unknown, name: string) => {
    if (typeof v !== 'string' || !isUlid(v)) throw malformed(`${name} must be a ULID`);
    return v;
  };
  if (type === 'administration') {
    if (present(org) || present(project)) throw malformed('an Administration credential has no organisation or project binding');
    return {};
  }
  if (type === 'organisation') {
    if (present(project)) throw malformed('an organisation credential is bound to an organisation, not a project');
    return { organisationId: ulidOrThrow(org, 'organisation_id') };
  }
  if (present(org)) throw malformed('a project credential is bound to a project only');
  return { projectId: ulidOrThrow(project, 'project_id') };
}

function checkAbilities(type: CredentialType, raw: unknown): Permission[] {
  if (!Array.isArray(raw) || raw.length === 0) throw new IssuanceError('empty_abilities', 'abilities must name at least one permission');
  const names = raw.map((a) => (typeof a === 'string' ? a : ''));
  const wildcard = names.find((n) => n.includes('*') || n === 'all');
  if (wildcard !== undefined) throw new IssuanceError('wildcard_ability', `wildcard grant "${wildcard}" is not accepted: pick permissions by name`);
  const retired = names.find((n) => RETIRED_ABILITIES.includes(n));
  if (retired !== undefined) throw new IssuanceError('retired_ability', `"${retired}" is a retired grant: pick a current permission`);
  const unknown = names.find((n) => !isPermission(n));
  if (unknown !== undefined) throw new IssuanceError('unknown_ability', `"${unknown}" is not a permission`);
  const inType = permissionsOf(type);
  const outside = names.filter((n) => !inType.includes(n as Permission));
  if (outside.length > 0) {
    const mixed = outside.length < names.length;
    throw new IssuanceError(
      mixed ? 'mixed_abilities' : 'out_of_type_ability',
      mixed
        ? `a ${type} credential cannot mix in permissions of another credential type: ${outside.join(', ')}`
        : `${outside.join(', ')} cannot be granted to a ${type} credential`,
    );
  }
  const selected = [...new Set(names)] as Permission[];
  for (const p of selected) {
    const missing = dependenciesOf(type, p).filter((d) => !selected.includes(d));
    if (missing.length) throw new IssuanceError('missing_dependency', `${p} needs ${missing.join(', ')} selected too`);
  }
  return selected;
}

function expiry(raw: unknown, now: Date, maxDays: number): Date {
  const latest = new Date(now.getTime() + maxDays * DAY_MS);
  if (raw === undefined || raw === null) return latest;
  if (typeof raw !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(raw)) {
    throw new IssuanceError('invalid_expiry', 'expires_at must be an ISO 8601 timestamp with a time zone');
  }
  const at = new Date(raw);
  if (Number.isNaN(at.getTime())) throw new IssuanceError('invalid_expiry', 'expires_at is not a valid timestamp');
  if (at.getTime() <= now.getTime()) throw new IssuanceError('expiry_not_in_future', 'expires_at must be in the future');
  if (at.getTime() > latest.getTime()) throw new IssuanceError('expiry_beyond_lifetime', `expires_at is beyond the maximum lifetime of ${maxDays} days`);
  return at;
}

/**
 * Seed, Authentication part 4 and the permission table: what the issuer must hold live for the
 * credential. Returns the missing permission names (empty when issuance may go ahead).
 */
export function issuerShortfall(v: ValidIssuance, issuerLive: ReadonlySet<string>): string[] {
  const needed = new Set<string>(v.abilities);
  for (const p of v.abilities) for (const d of dependenciesOf(v.type, p)) needed.add(d);
  if (v.type === 'administration') needed.add('manage-org-hierarchy');
  const missing = [...needed].filter((p) => !issuerLive.has(p));
  if (v.type === 'organisation' && !issuerLive.has('manage-org-hierarchy') && !issuerLive.has('manage-projects')) {
    missing.push('manage-org-hierarchy or manage-projects');
  }
  return missing;
}

/**
 * Seed, Authentication part 6 and Versioning part 3: a stored credential whose grants or binding
 * would not be issued today (retired, unknown, mixed, wildcard or out-of-type abilities, missing
 * dependencies, no stored mode, a binding that does not fit its type) is invalid and must be reissued.
 */
export function storedCredentialValid<
  T extends {
    type: CredentialType;
    abilities: unknown;
    read_only?: unknown;
    organisation_id?: string;
    project_id?: string;
  },
>(token: T): token is T & { abilities: Permission[]; read_only: boolean } {
  if (typeof token.read_only !== 'boolean') return false;
  const bindingFits =
    token.type === 'administration'
      ? !token.organisation_id && !token.project_id
      : token.type === 'organisation'
        ? !!token.organisation_id && !token.project_id
        : !!token.project_id;
  if (!bindingFits) return false;
  try {
    checkAbilities(token.type, token.abilities);
    return true;
  } catch (error) {
    if (error instanceof IssuanceError) return false;
    throw error;
  }
}
