import { revokeTokenAs } from '../../auth/administration.js';
import { AdministrationRefusedError } from '../../auth/administrator.js';
import { IssuanceError, maxLifetimeDays, type IssuanceRequest } from '../../auth/issuance.js';
import { configuredLifetimes, issueTokenAs } from '../../auth/issue.js';
import { CREDENTIAL_TYPES, dependenciesOf, EXPLICIT_ONLY, permissionsOf, type CredentialType } from '../../domain/permissions.js';
import { accessScopeOf, userAccess, userTokens, type StoredToken } from '../../store/identity.js';
import { keys, type Key } from '../../store/keys.js';
import { toOrganisation } from '../../store/organisations.js';
import { toProject } from '../../store/projects.js';
import { getMany, keyString, type Item } from '../../store/read.js';
import { consolePath } from '../config.js';
import { redirect, type ConsoleResponse } from '../http.js';
import { ErrorPage } from '../pages/auth.js';
import { NewTokenPage, TokenIssuedPage, TokensPage, type NewTokenForm, type TokenRow } from '../pages/tokens.js';
import { html, type Route, type SessionContext } from '../route.js';

const DAY_MS = 86_400_000;
/** Binding names for tokens and access rows: organisations and projects by id, read together. */
export async function namesOf(ids: { organisations: string[]; projects: string[] }): Promise<Map<string, string>> {
  const wanted: Key[] = [...ids.organisations.map(keys.organisation), ...ids.projects.map(keys.project)];
  const found = wanted.length ? await getMany(wanted) : new Map<string, Item>();
  const names = new Map<string, string>();
  const named = (id: string, key: Key, nameOf: (item: Item) => string) => {
    const item = found.get(keyString(key));
    names.set(id, item ? nameOf(item) : `${id} (gone)`);
  };
  for (const id of ids.organisations) named(id, keys.organisation(id), (item) => toOrganisation(item).name);
  for (const id of ids.projects) named(id, keys.project(id), (item) => toProject(item).name);
  return names;
}

export async function tokenRows(tokens: StoredToken[]): Promise<TokenRow[]> {
  const names = await namesOf({
    organisations: tokens.filter((t) => t.type === 'organisation').map((t) => t.organisation_id!),
    projects: tokens.filter((t) => t.type === 'project').map((t) => t.project_id!),
  });
  return tokens.map((token) => ({
    token,
    binding: token.type === 'project' ? names.get(token.project_id!)! : token.type === 'organisation' ? names.get(token.organisation_id!)! : '—',
  }));
}

/**
 * What the person may bind a token of the type to: a project they hold access to, or an
 * organisation where they hold manage-org-hierarchy or manage-projects (Authentication, boundary
 * rule 4). Issuance checks it again; this only keeps the form from offering what would be refused.
 */
async function bindingsOf(userId: string, type: CredentialType): Promise<NewTokenForm['bindings']> {
  if (type === 'administration') return [];
  const access = await userAccess(userId);
  const ids = access.flatMap((a) => {
    const scope = accessScopeOf(a);
    if (scope.kind !== type) return [];
    const held = a.permissions;
    return type === 'project' || held.includes('manage-org-hierarchy') || held.includes('manage-projects') ? [scope.id] : [];
  });
  const names = await namesOf(type === 'project' ? { organisations: [], projects: ids } : { organisations: ids, projects: [] });
  return ids.map((id) => ({ value: id, label: names.get(id)! })).sort((a, b) => a.label.localeCompare(b.label));
}

const dateOf = (at: Date) => at.toISOString().slice(0, 10);

async function newTokenForm(ctx: SessionContext, type: CredentialType, values?: NewTokenForm['values'], error?: string): Promise<NewTokenForm> {
  const l = configuredLifetimes();
  const readOnlyDays = maxLifetimeDays(type, true, l);
  return {
    type,
    bindings: await bindingsOf(ctx.signedIn.user.id, type),
    permissions: permissionsOf(type).map((name) => ({ name, needs: dependenciesOf(type, name), explicit: EXPLICIT_ONLY.includes(name) })),
    maxDays: { readOnly: readOnlyDays, mutation: maxLifetimeDays(type, false, l) },
    // Read-only by default (Authentication part 5); the form starts within the shorter lifetime.
    values: values ?? {
      name: '',
      binding: '',
      abilities: [],
      readOnly: true,
      expires: dateOf(new Date(ctx.now.getTime() + Math.min(30, readOnlyDays - 1) * DAY_MS)),
    },
    ...(error ? { error } : {}),
  };
}

const typeOf = (raw: string | null): CredentialType => ((CREDENTIAL_TYPES as readonly string[]).includes(raw ?? '') ? (raw as CredentialType) : 'project');

/** The form as the issuance module reads it: the binding by the type's field, the date's last second. */
function issuanceRequest(form: URLSearchParams): { request: IssuanceRequest; values: NewTokenForm['values'] } {
  const type = typeOf(form.get('token_type'));
  const binding = form.get('binding') ?? '';
  const expires = form.get('expires') ?? '';
  const readOnly = form.get('read_only');
  const request: IssuanceRequest = {
    token_type: type,
    ...(type === 'project' ? { project_id: binding } : type === 'organisation' ? { organisation_id: binding } : {}),
    name: form.get('name') ?? '',
    abilities: form.getAll('abilities'),
    read_only: readOnly === 'true' ? true : readOnly === 'false' ? false : undefined,
    expires_at: /^\d{4}-\d{2}-\d{2}$/.test(expires) ? `${expires}T23:59:59Z` : expires,
  };
  return {
    request,
    values: { name: form.get('name') ?? '', binding, abilities: form.getAll('abilities'), readOnly: readOnly !== 'false', expires },
  };
}

async function issue(ctx: SessionContext): Promise<ConsoleResponse> {
  const { request, values } = issuanceRequest(ctx.form);
  try {
    const issued = await issueTokenAs(ctx.signedIn.user.id, request, ctx.audit, ctx.now);
    const page = html(<TokenIssuedPage ctx={ctx.page} name={String(request.name).trim()} secret={issued.token} expiresAt={issued.expires_at} />);
    return page;
  } catch (error) {
    if (!(error instanceof IssuanceError)) throw error;
    const type = request.token_type as CredentialType;
    return html(<NewTokenPage ctx={ctx.page} form={await newTokenForm(ctx, type, values, error.message)} />, 422);
  }
}

/** Revocation through the one rule of Authentication part 9, for the owner here and administrators on a user's page. */
export async function revoke(ctx: SessionContext, after: string): Promise<ConsoleResponse> {
  try {
    await revokeTokenAs(ctx.signedIn.admin, ctx.params.token!, ctx.audit, ctx.now);
  } catch (error) {
    if (!(error instanceof AdministrationRefusedError)) throw error;
    return html(<ErrorPage ctx={ctx.page} status={404} message="That token does not exist, or is not yours to revoke." />, 404);
  }
  return redirect(consolePath(ctx.config, after));
}

export const tokenRoutes: Route[] = [
  {
    method: 'GET',
    path: '/',
    gate: 'session',
    handle: async (ctx) => {
      const notice = ctx.request.query.get('revoked') ? 'The token is revoked: the API refuses it from now on.' : undefined;
      const rows = await tokenRows(await userTokens(ctx.signedIn.user.id));
      return html(<TokensPage ctx={ctx.page} rows={rows} now={ctx.now} notice={notice} />);
    },
  },
  {
    method: 'GET',
    path: '/tokens/new',
    gate: 'session',
    handle: async (ctx) => html(<NewTokenPage ctx={ctx.page} form={await newTokenForm(ctx, typeOf(ctx.request.query.get('type')))} />),
  },
  { method: 'POST', path: '/tokens', gate: 'session', confirm: 'issue a token', handle: issue },
  { method: 'POST', path: '/tokens/{token}/revoke', gate: 'session', confirm: 'revoke a token', handle: (ctx) => revoke(ctx, '/?revoked=1') },
];
