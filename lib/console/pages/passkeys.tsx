import type { PasskeyRecord } from '../../store/passkeys.js';
import { Csrf, href, Layout, Notice, Status, when, type PageContext } from './layout.js';

export const PasskeysPage = ({ ctx, passkeys, notice }: { ctx: PageContext; passkeys: PasskeyRecord[]; notice?: string }) => (
  <Layout {...ctx} title="Your passkeys" ceremonies>
    <p>Each passkey signs you in on its own. Keep at least two, on different devices, so that losing one does not lock you out.</p>
    <Notice message={notice} />
    <table>
      <caption class="visually-hidden">Passkeys</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Registered</th>
          <th scope="col">Last used</th>
          <th scope="col">Synced</th>
          <th scope="col">
            <span class="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {passkeys.map((p) => (
          <tr>
            <th scope="row">{p.name}</th>
            <td>{when(p.created_at)}</td>
            <td>{when(p.last_used_at)}</td>
            <td>{p.backed_up ? 'Yes' : 'No'}</td>
            <td>
              {passkeys.length > 1 ? (
                <form method="post" action={href(ctx, `/passkeys/${p.id}/remove`)}>
                  <Csrf ctx={ctx} />
                  <button type="submit" class="danger" aria-label={`Remove ${p.name}`}>
                    Remove
                  </button>
                </form>
              ) : (
                <span class="hint">Your only passkey</span>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
    <h2>Add a passkey</h2>
    <form id="register-form" data-ceremony="register">
      <label for="passkey-name">Passkey name</label>
      <input id="passkey-name" name="name" required maxlength={100} autocomplete="off" />
      <button type="submit">Register passkey</button>
    </form>
    <Status />
  </Layout>
);
