import { CREDENTIAL_TYPES, type CredentialType } from '../../domain/permissions.js';
import type { StoredToken } from '../../store/identity.js';
import { approximately, Csrf, href, Layout, Notice, OneTimeSecret, Status, when, type PageContext } from './layout.js';

export const TYPE_LABELS: Record<CredentialType, string> = { project: 'Project', organisation: 'Organisation', administration: 'Administration' };

export interface TokenRow {
  token: StoredToken;
  /** The binding's name (project or organisation), or a dash for Administration. */
  binding: string;
}

/** The tokens table, for the owner's own page and an administrator's view of another user. */
export const TokenTable = ({ ctx, rows, now, revokeAction }: { ctx: PageContext; rows: TokenRow[]; now: Date; revokeAction: (id: string) => string }) =>
  rows.length === 0 ? (
    <p>No tokens.</p>
  ) : (
    <table>
      <caption class="visually-hidden">Tokens</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Type</th>
          <th scope="col">Binding</th>
          <th scope="col">Abilities</th>
          <th scope="col">Mode</th>
          <th scope="col">Expires</th>
          <th scope="col">Created</th>
          <th scope="col">Last used</th>
          <th scope="col">
            <span class="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map(({ token, binding }) => (
          <tr>
            <th scope="row">{token.name}</th>
            <td>{TYPE_LABELS[token.type]}</td>
            <td>{binding}</td>
            <td>
              <ul class="plain">
                {token.abilities.map((a) => (
                  <li>
                    <code>{a}</code>
                  </li>
                ))}
              </ul>
            </td>
            <td>{token.read_only ? 'Read-only' : 'Mutation-enabled'}</td>
            <td class={Date.parse(token.expires_at) <= now.getTime() ? 'expired' : undefined}>{when(token.expires_at)}</td>
            <td>{when(token.created_at)}</td>
            <td>{approximately(token.last_used_at, now)}</td>
            <td>
              <form method="post" action={revokeAction(token.id)}>
                <Csrf ctx={ctx} />
                <button type="submit" class="danger" aria-label={`Revoke ${token.name}`}>
                  Revoke
                </button>
              </form>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );

export const TokensPage = ({ ctx, rows, now, notice }: { ctx: PageContext; rows: TokenRow[]; now: Date; notice?: string }) => (
  <Layout {...ctx} title="Your tokens">
    <p>Personal access tokens call the API as you, within what you can do and what the token selects.</p>
    <Notice message={notice} />
    <p>
      <a class="button" href={href(ctx, '/tokens/new')}>
        New token
      </a>
    </p>
    <TokenTable ctx={ctx} rows={rows} now={now} revokeAction={(id) => href(ctx, `/tokens/${id}/revoke`)} />
  </Layout>
);

export interface PermissionChoice {
  name: string;
  needs: readonly string[];
  /** Approval and publication (Authentication part 8): never preselected, never in select-all. */
  explicit: boolean;
}

export interface NewTokenForm {
  type: CredentialType;
  bindings: { value: string; label: string }[];
  permissions: PermissionChoice[];
  maxDays: { readOnly: number; mutation: number };
  values: { name: string; binding: string; abilities: string[]; readOnly: boolean; expires: string };
  error?: string;
}

export const NewTokenPage = ({ ctx, form }: { ctx: PageContext; form: NewTokenForm }) => (
  <Layout {...ctx} title="New token">
    <nav aria-label="Token type" class="tabs">
      <ul>
        {CREDENTIAL_TYPES.map((t) => (
          <li>
            <a href={href(ctx, `/tokens/new?type=${t}`)} aria-current={t === form.type ? 'page' : undefined}>
              {TYPE_LABELS[t]}
            </a>
          </li>
        ))}
      </ul>
    </nav>
    {form.error ? <Status message={form.error} error /> : null}
    {form.type !== 'administration' && form.bindings.length === 0 ? (
      <p>{`You have no ${form.type} access that can issue this type of token. An administrator grants access.`}</p>
    ) : (
      <form method="post" action={href(ctx, '/tokens')} class="stack" id="token-form">
        <Csrf ctx={ctx} />
        <input type="hidden" name="token_type" value={form.type} />
        <label for="token-name">Name</label>
        <input id="token-name" name="name" required maxlength={200} value={form.values.name} />
        {form.type === 'administration' ? null : (
          <>
            <label for="binding">{form.type === 'project' ? 'Project' : 'Organisation'}</label>
            <select id="binding" name="binding" required>
              {form.bindings.map((b) => (
                <option value={b.value} selected={b.value === form.values.binding}>
                  {b.label}
                </option>
              ))}
            </select>
          </>
        )}
        <fieldset>
          <legend>Abilities</legend>
          <p class="hint">
            A permission's dependencies are needed with it. Approval and publication permissions are never selected for you: tick them one by one.
          </p>
          <p>
            <button type="button" data-select-all="abilities">
              Select all except approval and publication
            </button>
          </p>
          {form.permissions.map((p) => (
            <div class="choice">
              <input
                type="checkbox"
                id={`ability-${p.name}`}
                name="abilities"
                value={p.name}
                checked={form.values.abilities.includes(p.name)}
                data-needs={p.needs.join(' ')}
                data-explicit={p.explicit ? 'true' : undefined}
              />
              <label for={`ability-${p.name}`}>
                <code>{p.name}</code>
                {p.needs.length ? <span class="hint">{` needs ${p.needs.join(', ')}`}</span> : null}
                {p.explicit ? <span class="hint"> (pick explicitly)</span> : null}
              </label>
            </div>
          ))}
        </fieldset>
        <fieldset>
          <legend>Mode</legend>
          <div class="choice">
            <input type="radio" id="mode-read-only" name="read_only" value="true" checked={form.values.readOnly} />
            <label for="mode-read-only">{`Read-only (up to ${form.maxDays.readOnly} days)`}</label>
          </div>
          <div class="choice">
            <input type="radio" id="mode-mutation" name="read_only" value="false" checked={!form.values.readOnly} />
            <label for="mode-mutation">{`Mutation-enabled (up to ${form.maxDays.mutation} days)`}</label>
          </div>
        </fieldset>
        <label for="expires">Expires on (end of the day, UTC)</label>
        <input type="date" id="expires" name="expires" required value={form.values.expires} />
        <button type="submit">Issue token</button>
      </form>
    )}
  </Layout>
);

export const TokenIssuedPage = ({ ctx, name, secret, expiresAt }: { ctx: PageContext; name: string; secret: string; expiresAt: string }) => (
  <Layout {...ctx} title="Token issued">
    <Notice message={`Copy the token "${name}" now: it is shown only once and cannot be shown again. It expires ${when(expiresAt)}.`} />
    <OneTimeSecret label="Token" value={secret} />
    <p>
      Send it as <code>Authorization: Bearer &lt;token&gt;</code> over HTTPS.
    </p>
    <p>
      <a href={href(ctx, '/')}>Back to your tokens</a>
    </p>
  </Layout>
);
