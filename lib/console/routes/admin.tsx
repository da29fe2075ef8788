import { createUserAs, grantablePermissions, grantAccessAs, reEnrolAs, revokeAccessAs, setStatusAs } from '../../auth/administration.js';
import { AdministrationRefusedError, mayAdminister } from '../../auth/administrator.js';
import { accessScopeOf, getUser, listUsers, userAccess, userTokens, type AccessScope, type UserStatus } from '../../store/identity.js';
import { organisationsByIds, visibleOrganisationIds } from '../../store/organisations.js';
import { listPasskeys } from '../../store/passkeys.js';
import { consolePath, enrolmentUrl } from '../config.js';
import { redirect, type ConsoleResponse } from '../http.js';
import { EnrolmentLinkPage, UserPage, UsersPage, type AccessRow, type UserPageData } from '../pages/admin.js';
import { ErrorPage } from '../pages/auth.js';
import { html, ULID_SEGMENT, type Route, type SessionContext } from '../route.js';
import { namesOf, revoke, tokenRows } from './tokens.js';

/**
 * User and access administration for those holding manage-users (and manage-super-users for
 * super users). The rules live in lib/auth/administration.ts, shared with the operator CLI; these
 * routes only read forms and draw pages.
 */
const STATUS_CODE: Record<AdministrationRefusedError['reason'], number> = { forbidden: 403, not_found: 404, invalid: 422, conflict: 409 };

async function userPageData(ctx: SessionContext, userId: string, extra: Pick<UserPageData, 'notice' | 'error'> = {}): Promise<UserPageData | undefined> {
  const user = await getUser(userId);
  if (!user || user.status === 'deleted') return undefined;
  const [grants, tokens, passkeys, visible] = await Promise.all([
    userAccess(user.id),
    userTokens(user.id),
    listPasskeys(user.id),
    visibleOrganisationIds(ctx.signedIn.user.id),
  ]);
  const scopes = grants.map(accessScopeOf);
  const names = await namesOf({
    organisations: scopes.flatMap((g) => (g.kind === 'organisation' ? [g.id] : [])),
    projects: scopes.flatMap((g) => (g.kind === 'project' ? [g.id] : [])),
  });
  const access: AccessRow[] = grants.map((a, i) => {
    const scope = scopes[i]!;
    const id = scope.kind === 'installation' ? undefined : scope.id;
    return { scope: a.scope, id, label: id ? `${a.scope} ${names.get(id)}` : 'installation', permissions: a.permissions };
  });
  const organisations = (await organisationsByIds(visible.slice(0, 100))).map((o) => ({ id: o.id, name: o.name }));
  return {
    user,
    access,
    tokens: await tokenRows(tokens),
    passkeys: passkeys.length,
    choices: {
      installation: grantablePermissions('installation'),
      organisation: grantablePermissions('organisation'),
      project: grantablePermissions('project'),
      organisations,
    },
    now: ctx.now,
    ...extra,
  };
}

/** A refused change redraws the page it came from with the reason, and the status that names it. */
async function refusedOn(ctx: SessionContext, userId: string | undefined, error: AdministrationRefusedError): Promise<ConsoleResponse> {
  const status = STATUS_CODE[error.reason];
  const data = userId ? await userPageData(ctx, userId, { error: error.message }) : undefined;
  if (data) return html(<UserPage ctx={ctx.page} data={data} />, status);
  if (!userId) return html(<UsersPage ctx={ctx.page} users={await listUsers()} mayCreateSuperUsers={mayCreateSuperUsers(ctx)} error={error.message} />, status);
  return html(<ErrorPage ctx={ctx.page} status={status} message={error.message} />, status);
}

const mayCreateSuperUsers = (ctx: SessionContext) => mayAdminister(ctx.signedIn.admin, { super_user: true });

/** Runs a change; a refusal is drawn on the user's page (or the users list when there is no user yet). */
async function change(ctx: SessionContext, userId: string | undefined, act: () => Promise<ConsoleResponse>): Promise<ConsoleResponse> {
  try {
    return await act();
  } catch (error) {
    if (error instanceof AdministrationRefusedError) return refusedOn(ctx, userId, error);
    throw error;
  }
}

function scopeOf(form: URLSearchParams): AccessScope | undefined {
  const scope = form.get('scope');
  if (scope === 'installation') return { kind: 'installation' };
  const id = form.get('id') ?? '';
  if ((scope === 'organisation' || scope === 'project') && ULID_SEGMENT.test(id)) return { kind: scope, id };
  return undefined;
}

const badScope = () => new AdministrationRefusedError('invalid', 'pick a scope, and for an organisation or project its 26-character id');
const userUrl = (ctx: SessionContext, userId: string, notice?: string) =>
  consolePath(ctx.config, `/admin/users/${userId}${notice ? `?notice=${encodeURIComponent(notice)}` : ''}`);

const statusRoute = (action: string, status: UserStatus, done: string): Route => ({
  method: 'POST',
  path: `/admin/users/{user}/${action}`,
  gate: 'administrator',
  confirm: `${action} a user`,
  handle: (ctx) =>
    change(ctx, ctx.params.user, async () => {
      await setStatusAs(ctx.signedIn.admin, ctx.params.user!, status, ctx.audit, ctx.now);
      return redirect(status === 'deleted' ? consolePath(ctx.config, '/admin/users') : userUrl(ctx, ctx.params.user!, done));
    }),
});

/** A change of the user's access at the scope the form names. */
const accessRoute = (path: string, done: string, act: (ctx: SessionContext, scope: AccessScope) => Promise<unknown>): Route => ({
  method: 'POST',
  path,
  gate: 'administrator',
  confirm: 'change access',
  handle: (ctx) =>
    change(ctx, ctx.params.user, async () => {
      const scope = scopeOf(ctx.form);
      if (!scope) throw badScope();
      await act(ctx, scope);
      return redirect(userUrl(ctx, ctx.params.user!, done));
    }),
});

/** Notices come back from a redirect as a query value: only these texts are ever shown. */
const NOTICES = new Set(['The user is disabled.', 'The user is enabled.', 'Access granted.', 'Access revoked.', 'The token is revoked.']);

export const adminRoutes: Route[] = [
  {
    method: 'GET',
    path: '/admin/users',
    gate: 'administrator',
    handle: async (ctx) => html(<UsersPage ctx={ctx.page} users={await listUsers()} mayCreateSuperUsers={mayCreateSuperUsers(ctx)} />),
  },
  {
    method: 'POST',
    path: '/admin/users',
    gate: 'administrator',
    confirm: 'create a user',
    handle: (ctx) =>
      change(ctx, undefined, async () => {
        const input = { email: ctx.form.get('email'), name: ctx.form.get('name'), superUser: ctx.form.get('super_user') === 'true' };
        const { user, enrolment } = await createUserAs(ctx.signedIn.admin, input, ctx.audit, ctx.now);
        return html(<EnrolmentLinkPage ctx={ctx.page} user={user} url={enrolmentUrl(ctx.config, enrolment.secret)} expiresAt={enrolment.expires_at} />, 201);
      }),
  },
  {
    method: 'GET',
    path: '/admin/users/{user}',
    gate: 'administrator',
    handle: async (ctx) => {
      const notice = ctx.request.query.get('notice') ?? undefined;
      const data = await userPageData(ctx, ctx.params.user!, { notice: notice && NOTICES.has(notice) ? notice : undefined });
      if (!data) return html(<ErrorPage ctx={ctx.page} status={404} message="No such user." />, 404);
      return html(<UserPage ctx={ctx.page} data={data} />);
    },
  },
  {
    method: 'POST',
    path: '/admin/users/{user}/enrol',
    gate: 'administrator',
    confirm: 're-enrol a user',
    handle: (ctx) =>
      change(ctx, ctx.params.user, async () => {
        const enrolment = await reEnrolAs(ctx.signedIn.admin, ctx.params.user!, ctx.audit, ctx.now);
        const user = (await getUser(ctx.params.user!))!;
        return html(<EnrolmentLinkPage ctx={ctx.page} user={user} url={enrolmentUrl(ctx.config, enrolment.secret)} expiresAt={enrolment.expires_at} />, 201);
      }),
  },
  statusRoute('disable', 'disabled', 'The user is disabled.'),
  statusRoute('enable', 'active', 'The user is enabled.'),
  statusRoute('delete', 'deleted', ''),
  accessRoute('/admin/users/{user}/access', 'Access granted.', (ctx, scope) =>
    grantAccessAs(ctx.signedIn.admin, ctx.params.user!, scope, ctx.form.getAll('permissions'), ctx.audit, ctx.now),
  ),
  accessRoute('/admin/users/{user}/access/revoke', 'Access revoked.', (ctx, scope) =>
    revokeAccessAs(ctx.signedIn.admin, ctx.params.user!, scope, ctx.audit, ctx.now),
  ),
  {
    method: 'POST',
    path: '/admin/users/{user}/tokens/{token}/revoke',
    gate: 'administrator',
    confirm: 'revoke a token',
    handle: (ctx) => revoke(ctx, `/admin/users/${ctx.params.user}?notice=${encodeURIComponent('The token is revoked.')}`),
  },
];
