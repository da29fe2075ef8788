import { newUlid } from '../domain/ids.js';
import { settings } from '../config.js';
import { getUser, livePermissions, putToken, type AccessScope } from '../store/identity.js';
import { keys } from '../store/keys.js';
import { toProject } from '../store/projects.js';
import { getOne } from '../store/read.js';
import { IssuanceError, issuerShortfall, validateIssuance, type IssuanceRequest, type Lifetimes } from './issuance.js';
import { hashToken, mintToken } from './tokens.js';
import { tokenHashSecret } from './secret.js';
import { writeAudit } from '../store/audit.js';
import type { AuditContext } from './administration.js';

export interface IssuedToken {
  id: string;
  token: string;
  expires_at: string;
}

/** The credential lifetimes this installation is configured with (the seed's table, as settings). */
export function configuredLifetimes(): Lifetimes {
  const s = settings();
  return {
    projectReadOnlyDays: s.TOKEN_PROJECT_READ_ONLY_MAX_DAYS,
    projectMutationDays: s.TOKEN_PROJECT_MUTATION_MAX_DAYS,
    organisationDays: s.TOKEN_ORGANISATION_MAX_DAYS,
    administrationDays: s.TOKEN_ADMINISTRATION_MAX_DAYS,
  };
}

/**
 * Issues a personal access token to an active user, as the web interface would behind its
 * session gates: the form is validated, the binding must exist, and the user must hold live
 * access and every selected permission. The secret is returned once and stored only as a hash.
 */
export async function issueToken(userId: string, request: IssuanceRequest, now: Date): Promise<IssuedToken> {
  const valid = validateIssuance(request, now, configuredLifetimes());
  const user = await getUser(userId);
  if (user?.status !== 'active') throw new IssuanceError('inactive_user', 'tokens are issued only to active users');

  let organisationId = valid.organisationId;
  let scope: AccessScope = { kind: 'installation' };
  if (valid.type === 'organisation') {
    if (!(await getOne(keys.organisation(valid.organisationId!)))) throw new IssuanceError('malformed_binding', 'the organisation does not exist');
    scope = { kind: 'organisation', id: valid.organisationId! };
  }
  if (valid.type === 'project') {
    const project = await getOne(keys.project(valid.projectId!));
    if (!project) throw new IssuanceError('malformed_binding', 'the project does not exist');
    organisationId = toProject(project).organisation_id;
    scope = { kind: 'project', id: valid.projectId! };
  }
  const live = await livePermissions(userId, scope);
  if (!live && valid.type !== 'administration') throw new IssuanceError('no_access', `the user has no access to this ${valid.type}`);
  const missing = issuerShortfall(valid, live ?? new Set());
  if (missing.length) throw new IssuanceError('issuer_lacks_permission', `the user does not hold ${missing.join(', ')}`);

  const id = newUlid(now.getTime());
  const key = await tokenHashSecret();
  const token = mintToken({ tokenId: id, userId, organisationId, projectId: valid.projectId }, key);
  await putToken({
    id,
    user_id: userId,
    type: valid.type,
    ...(organisationId ? { organisation_id: organisationId } : {}),
    ...(valid.projectId ? { project_id: valid.projectId } : {}),
    name: valid.name,
    abilities: valid.abilities,
    read_only: valid.readOnly,
    expires_at: valid.expiresAt.toISOString(),
    created_at: now.toISOString(),
    secret_hash: hashToken(token, key),
  });
  return { id, token, expires_at: valid.expiresAt.toISOString() };
}

/** Issuance as the console and the CLI do it: the token, and its audit event without the secret or hash. */
export async function issueTokenAs(userId: string, request: IssuanceRequest, ctx: AuditContext, now: Date): Promise<IssuedToken> {
  const issued = await issueToken(userId, request, now);
  await writeAudit({ ...ctx, kind: 'TOKEN_ISSUED', status: 0, actor_id: userId, token_id: issued.id }, now);
  return issued;
}
