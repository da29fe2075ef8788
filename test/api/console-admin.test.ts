import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../lib/console/session.js';
import { itemPresent } from '../../lib/store/conditions.js';
import { getUser, userAccess, userTokens } from '../../lib/store/identity.js';
import { keys } from '../../lib/store/keys.js';
import { listPasskeys } from '../../lib/store/passkeys.js';
import { updateIf } from '../../lib/store/update.js';
import { type Api, fixtures } from '../support/api.js';
import { auditRecords } from '../support/audit.js';
import { consoleClient, confirmWith, enrolWith, softPasskey, type ConsoleClient } from '../support/console.js';
import { consoleUser, startConsoleApi } from '../support/console-users.js';

let api: Api;
let projectId: string;
beforeAll(async () => {
  ({ api, projectId } = await startConsoleApi());
});
afterAll(() => api.stop());

const administrator = (extra: string[] = []) => consoleUser(api.base, { installation: ['manage-users', ...extra] });
const post = (client: ConsoleClient, path: string, fields: [string, string][] = []) => client.postForm(path, [['csrf', client.csrf()], ...fields]);
const linkOf = (html: string) => /id="secret" readonly="" value="[^"#]+#([^"]+)"/.exec(html)?.[1];

describe('console user administration', () => {
  it('is refused to a person without manage-users', async () => {
    const { client } = await consoleUser(api.base);
    expect((await client.get('/admin/users')).status).toBe(403);
    expect(
      (
        await post(client, '/admin/users', [
          ['email', 'x@test.invalid'],
          ['name', 'X'],
        ])
      ).status,
    ).toBe(403);
  });

  it('creates a user and hands out a one-time enrolment link that registers their passkey', async () => {
    const { client } = await administrator();
    await client.get('/admin/users');
    const created = await post(client, '/admin/users', [
      ['email', `new-${Date.now()}@test.invalid`],
      ['name', 'New Colleague'],
    ]);
    expect(created.status).toBe(201);
    const secret = linkOf(created.text)!;
    const userId = secret.slice(0, 26);
    const enrolled = await enrolWith(consoleClient(api.base), secret, softPasskey(userId), api.base);
    expect(enrolled.status).toBe(200);
    expect(await listPasskeys(userId)).toHaveLength(1);
  });

  it('refuses to create a super user without manage-super-users', async () => {
    const { client } = await administrator();
    await client.get('/admin/users');
    const refused = await post(client, '/admin/users', [
      ['email', `su-${Date.now()}@test.invalid`],
      ['name', 'Super'],
      ['super_user', 'true'],
    ]);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('manage-super-users');
  });

  it('grants and revokes project access, each audited with the administrator', async () => {
    const { client, user: admin } = await administrator();
    const { user } = await consoleUser(api.base);
    await client.get(`/admin/users/${user.id}`);
    const granted = await post(client, `/admin/users/${user.id}/access`, [
      ['scope', 'project'],
      ['id', projectId],
      ['permissions', 'view-projects'],
    ]);
    expect(granted.status).toBe(303);
    expect((await userAccess(user.id)).map((a) => a.permissions)).toEqual([['view-projects']]);
    const revoked = await post(client, `/admin/users/${user.id}/access/revoke`, [
      ['scope', 'project'],
      ['id', projectId],
    ]);
    expect(revoked.status).toBe(303);
    expect(await userAccess(user.id)).toEqual([]);
    const kinds = (await auditRecords('installation')).filter((r) => r.actor_id === admin.id).map((r) => r.kind);
    expect(kinds).toEqual(expect.arrayContaining(['ACCESS_GRANTED', 'ACCESS_REVOKED']));
  });

  it('grants manage-users only to someone who holds it, and manage-super-users only with it', async () => {
    const { client } = await administrator();
    const { user } = await consoleUser(api.base);
    await client.get(`/admin/users/${user.id}`);
    const refused = await post(client, `/admin/users/${user.id}/access`, [
      ['scope', 'installation'],
      ['permissions', 'manage-super-users'],
    ]);
    expect(refused.status).toBe(403);
    const granted = await post(client, `/admin/users/${user.id}/access`, [
      ['scope', 'installation'],
      ['permissions', 'manage-users'],
    ]);
    expect(granted.status).toBe(303);
  });

  it('disables a user: their session and tokens stop at once', async () => {
    const { client } = await administrator();
    const person = await consoleUser(api.base);
    await fixtures.grant(person.user.id, { kind: 'project', id: projectId }, ['view-projects']);
    const secret = await fixtures.token(person.user.id, 'project', { projectId, abilities: ['view-projects'], readOnly: true });
    await client.get(`/admin/users/${person.user.id}`);
    expect((await post(client, `/admin/users/${person.user.id}/disable`)).status).toBe(303);
    expect((await person.client.get('/')).status).toBe(303);
    expect((await api.request('GET', `/api/v1/projects/${projectId}/inputs`, { token: secret })).status).toBe(401);
  });

  it('does not let an administrator disable themselves', async () => {
    const { client, user } = await administrator();
    await client.get(`/admin/users/${user.id}`);
    expect((await post(client, `/admin/users/${user.id}/disable`)).status).toBe(422);
    expect((await getUser(user.id))?.status).toBe('active');
  });

  it("revokes another user's token and audits administrator, owner and token", async () => {
    const { client, user: admin } = await administrator();
    const owner = await consoleUser(api.base);
    await fixtures.grant(owner.user.id, { kind: 'project', id: projectId }, ['view-projects']);
    const secret = await fixtures.token(owner.user.id, 'project', { projectId, abilities: ['view-projects'], readOnly: true });
    const [token] = await userTokens(owner.user.id);
    await client.get(`/admin/users/${owner.user.id}`);
    expect((await post(client, `/admin/users/${owner.user.id}/tokens/${token!.id}/revoke`)).status).toBe(303);
    expect((await api.request('GET', `/api/v1/projects/${projectId}/inputs`, { token: secret })).status).toBe(401);
    const event = (await auditRecords('installation')).find((r) => r.kind === 'TOKEN_REVOKED' && r.token_id === token!.id);
    expect(event).toMatchObject({ actor_id: admin.id, details: { owner_id: owner.user.id } });
  });

  it("needs manage-super-users to revoke a super user's token", async () => {
    const { client } = await administrator();
    const superUser = await consoleUser(api.base, { superUser: true });
    await fixtures.grant(superUser.user.id, { kind: 'project', id: projectId }, ['view-projects']);
    await fixtures.token(superUser.user.id, 'project', { projectId, abilities: ['view-projects'], readOnly: true });
    const [token] = await userTokens(superUser.user.id);
    await client.get(`/admin/users/${superUser.user.id}`);
    expect((await post(client, `/admin/users/${superUser.user.id}/tokens/${token!.id}/revoke`)).status).toBe(404);
    expect(await userTokens(superUser.user.id)).toHaveLength(1);
    const senior = await administrator(['manage-super-users']);
    await senior.client.get(`/admin/users/${superUser.user.id}`);
    expect((await post(senior.client, `/admin/users/${superUser.user.id}/tokens/${token!.id}/revoke`)).status).toBe(303);
    expect(await userTokens(superUser.user.id)).toEqual([]);
  });

  it('re-enrols a user: a new link, their sessions end, their tokens stay', async () => {
    const { client } = await administrator();
    const person = await consoleUser(api.base);
    await fixtures.grant(person.user.id, { kind: 'project', id: projectId }, ['view-projects']);
    const secret = await fixtures.token(person.user.id, 'project', { projectId, abilities: ['view-projects'], readOnly: true });
    await client.get(`/admin/users/${person.user.id}`);
    const reenrolled = await post(client, `/admin/users/${person.user.id}/enrol`);
    expect(reenrolled.status).toBe(201);
    expect(linkOf(reenrolled.text)).toMatch(new RegExp(`^${person.user.id}\\.`));
    expect((await person.client.get('/')).status).toBe(303);
    expect((await api.request('GET', `/api/v1/projects/${projectId}/inputs`, { token: secret })).status).toBe(200);
  });
});

describe('console passkeys', () => {
  it('registers a second passkey after a fresh confirmation', async () => {
    const { client, user } = await consoleUser(api.base);
    const second = softPasskey(user.id);
    await client.get('/passkeys');
    const options = await client.postJson('/passkeys/options');
    expect(options.status).toBe(200);
    const registered = await client.postJson('/passkeys', { name: 'Phone', response: second.register(options.json, api.base) });
    expect(registered.status).toBe(200);
    expect((await listPasskeys(user.id)).map((p) => p.name).sort()).toEqual(['Laptop', 'Phone']);
  });

  it('asks the script to confirm first when the confirmation is stale', async () => {
    const { client, passkey } = await consoleUser(api.base);
    await client.get('/passkeys');
    await updateIf(
      keys.consoleSession(sha256(client.jar.get('__Host-aop_session')!)),
      { confirmed_at: new Date(Date.now() - 600_000).toISOString() },
      itemPresent(),
    );
    const asked = await client.postJson('/passkeys/options');
    expect(asked.status).toBe(403);
    expect(asked.json.code).toBe('confirmation_required');
    expect((await confirmWith(client, passkey, api.base)).status).toBe(200);
    expect((await client.postJson('/passkeys/options')).status).toBe(200);
  });

  it('removes a passkey while another remains, never the last one', async () => {
    const { client, user } = await consoleUser(api.base);
    const [only] = await listPasskeys(user.id);
    await client.get('/passkeys');
    expect((await post(client, `/passkeys/${only!.id}/remove`)).status).toBe(409);
    const second = softPasskey(user.id);
    const options = await client.postJson('/passkeys/options');
    await client.postJson('/passkeys', { name: 'Phone', response: second.register(options.json, api.base) });
    await client.get('/passkeys');
    expect((await post(client, `/passkeys/${only!.id}/remove`)).status).toBe(303);
    expect((await listPasskeys(user.id)).map((p) => p.name)).toEqual(['Phone']);
  });

  it("refuses a confirmation made with another person's passkey", async () => {
    const { client } = await consoleUser(api.base);
    const other = await consoleUser(api.base);
    await client.get('/');
    const options = await client.postJson('/confirm/options');
    const answer = await client.postJson('/confirm', { response: other.passkey.assert(options.json, api.base) });
    expect(answer.status).toBe(401);
  });
});
