import type { UserRecord } from '../../store/identity.js';
import { Csrf, href, Layout, Notice, OneTimeSecret, Status, when, type PageContext } from './layout.js';
import { TokenTable, type TokenRow } from './tokens.js';

export const UsersPage = ({
  ctx,
  users,
  mayCreateSuperUsers,
  error,
}: {
  ctx: PageContext;
  users: UserRecord[];
  mayCreateSuperUsers: boolean;
  error?: string;
}) => (
  <Layout {...ctx} title="Users">
    {error ? <Status message={error} error /> : null}
    <table>
      <caption class="visually-hidden">Users</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Email</th>
          <th scope="col">Status</th>
          <th scope="col">Super user</th>
        </tr>
      </thead>
      <tbody>
        {users.map((u) => (
          <tr>
            <th scope="row">
              <a href={href(ctx, `/admin/users/${u.id}`)}>{u.name}</a>
            </th>
            <td>{u.email}</td>
            <td>{u.status}</td>
            <td>{u.super_user ? 'Yes' : 'No'}</td>
          </tr>
        ))}
      </tbody>
    </table>
    <h2>Create a user</h2>
    <form method="post" action={href(ctx, '/admin/users')} class="stack">
      <Csrf ctx={ctx} />
      <label for="email">Email</label>
      <input id="email" name="email" type="email" required maxlength={254} autocomplete="off" />
      <label for="name">Name</label>
      <input id="name" name="name" required maxlength={200} autocomplete="off" />
      {mayCreateSuperUsers ? (
        <div class="choice">
          <input type="checkbox" id="super-user" name="super_user" value="true" />
          <label for="super-user">Super user</label>
        </div>
      ) : null}
      <button type="submit">Create and get an enrolment link</button>
    </form>
  </Layout>
);

export const EnrolmentLinkPage = ({ ctx, user, url, expiresAt }: { ctx: PageContext; user: UserRecord; url: string; expiresAt: string }) => (
  <Layout {...ctx} title="Enrolment link">
    <Notice
      message={`Give this one-time link to ${user.name} over a channel you trust. It registers a passkey once, until ${when(expiresAt)}, and is not shown again.`}
    />
    <OneTimeSecret label="Enrolment link" value={url} />
    <p>
      <a href={href(ctx, `/admin/users/${user.id}`)}>{`Back to ${user.name}`}</a>
    </p>
  </Layout>
);

export interface AccessRow {
  scope: 'installation' | 'organisation' | 'project';
  id?: string;
  label: string;
  permissions: string[];
}

export interface GrantChoices {
  installation: string[];
  organisation: string[];
  project: string[];
  organisations: { id: string; name: string }[];
}

const ActionButton = ({ ctx, action, label, danger }: { ctx: PageContext; action: string; label: string; danger?: boolean }) => (
  <form method="post" action={action} class="inline">
    <Csrf ctx={ctx} />
    <button type="submit" class={danger ? 'danger' : undefined}>
      {label}
    </button>
  </form>
);

function GrantForm({
  ctx,
  user,
  scope,
  permissions,
  organisations,
}: {
  ctx: PageContext;
  user: UserRecord;
  scope: AccessRow['scope'];
  permissions: string[];
  organisations: GrantChoices['organisations'];
}) {
  return (
    <details>
      <summary>{`Grant ${scope} access`}</summary>
      <form method="post" action={href(ctx, `/admin/users/${user.id}/access`)} class="stack">
        <Csrf ctx={ctx} />
        <input type="hidden" name="scope" value={scope} />
        {scope === 'organisation' ? (
          <>
            <label for="grant-organisation">Organisation id</label>
            <input id="grant-organisation" name="id" required pattern="[0-9A-HJKMNP-TV-Z]{26}" list="known-organisations" autocomplete="off" />
            <datalist id="known-organisations">
              {organisations.map((o) => (
                <option value={o.id}>{o.name}</option>
              ))}
            </datalist>
          </>
        ) : null}
        {scope === 'project' ? (
          <>
            <label for="grant-project">Project id</label>
            <input id="grant-project" name="id" required pattern="[0-9A-HJKMNP-TV-Z]{26}" autocomplete="off" />
          </>
        ) : null}
        <fieldset>
          <legend>Permissions (replace any held at this scope)</legend>
          {permissions.map((p) => (
            <div class="choice">
              <input type="checkbox" id={`grant-${scope}-${p}`} name="permissions" value={p} />
              <label for={`grant-${scope}-${p}`}>
                <code>{p}</code>
              </label>
            </div>
          ))}
        </fieldset>
        <button type="submit">Grant</button>
      </form>
    </details>
  );
}

export interface UserPageData {
  user: UserRecord;
  access: AccessRow[];
  tokens: TokenRow[];
  choices: GrantChoices;
  passkeys: number;
  now: Date;
  notice?: string;
  error?: string;
}

export const UserPage = ({ ctx, data }: { ctx: PageContext; data: UserPageData }) => {
  const { user } = data;
  const base = `/admin/users/${user.id}`;
  return (
    <Layout {...ctx} title={user.name}>
      <Notice message={data.notice} />
      {data.error ? <Status message={data.error} error /> : null}
      <dl>
        <dt>Email</dt>
        <dd>{user.email}</dd>
        <dt>Status</dt>
        <dd>{user.status}</dd>
        <dt>Super user</dt>
        <dd>{user.super_user ? 'Yes' : 'No'}</dd>
        <dt>Passkeys</dt>
        <dd>{String(data.passkeys)}</dd>
        <dt>Created</dt>
        <dd>{when(user.created_at)}</dd>
      </dl>
      <div class="actions">
        {user.status === 'active' ? <ActionButton ctx={ctx} action={href(ctx, `${base}/enrol`)} label="Re-enrol (removes passkeys, ends sessions)" /> : null}
        {user.status === 'active' ? <ActionButton ctx={ctx} action={href(ctx, `${base}/disable`)} label="Disable" danger /> : null}
        {user.status === 'disabled' ? <ActionButton ctx={ctx} action={href(ctx, `${base}/enable`)} label="Enable" /> : null}
        {user.status !== 'deleted' ? <ActionButton ctx={ctx} action={href(ctx, `${base}/delete`)} label="Delete" danger /> : null}
      </div>
      <h2>Access</h2>
      {data.access.length === 0 ? <p>No access.</p> : null}
      <ul class="plain">
        {data.access.map((a) => (
          <li class="access">
            <strong>{a.label}</strong>: {a.permissions.join(', ')}{' '}
            <form method="post" action={href(ctx, `${base}/access/revoke`)} class="inline">
              <Csrf ctx={ctx} />
              <input type="hidden" name="scope" value={a.scope} />
              {a.id ? <input type="hidden" name="id" value={a.id} /> : null}
              <button type="submit" class="danger" aria-label={`Revoke access: ${a.label}`}>
                Revoke
              </button>
            </form>
          </li>
        ))}
      </ul>
      <GrantForm ctx={ctx} user={user} scope="installation" permissions={data.choices.installation} organisations={[]} />
      <GrantForm ctx={ctx} user={user} scope="organisation" permissions={data.choices.organisation} organisations={data.choices.organisations} />
      <GrantForm ctx={ctx} user={user} scope="project" permissions={data.choices.project} organisations={[]} />
      <h2>Tokens</h2>
      <TokenTable ctx={ctx} rows={data.tokens} now={data.now} revokeAction={(id) => href(ctx, `${base}/tokens/${id}/revoke`)} />
    </Layout>
  );
};
