import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../lib/console/session.js';
import { permissionsOf } from '../../lib/domain/permissions.js';
import { itemPresent } from '../../lib/store/conditions.js';
import { grantAccess, userTokens } from '../../lib/store/identity.js';
import { keys } from '../../lib/store/keys.js';
import { updateIf } from '../../lib/store/update.js';
import { type Api, fixtures } from '../support/api.js';
import { auditRecords } from '../support/audit.js';
import { confirmWith, consoleClient, type ConsoleClient } from '../support/console.js';
import { consoleUser, startConsoleApi } from '../support/console-users.js';

let api: Api;
let organisationId: string;
let projectId: string;
beforeAll(async () => {
  ({ api, organisationId, projectId } = await startConsoleApi());
});
afterAll(() => api.stop());

/** A signed-in person with read access to the project. */
async function projectPerson() {
  const person = await consoleUser(api.base);
  await grantAccess(person.user.id, { kind: 'project', id: projectId }, ['view-projects', 'view-controls'], new Date());
  return person;
}

const issueForm = (client: ConsoleClient, fields: Record<string, string | string[]>) => {
  const entries: [string, string][] = [['csrf', client.csrf()]];
  for (const [name, value] of Object.entries(fields)) for (const v of [value].flat()) entries.push([name, v]);
  return client.postForm('/tokens', entries);
};

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
const projectToken = { token_type: 'project', binding: '', name: 'CI reader', abilities: ['view-projects'], read_only: 'true', expires: inDays(10) };
const secretOf = (html: string) => /id="secret" readonly="" value="([^"]+)"/.exec(html)?.[1];

describe('console token issuance', () => {
  it('issues a project token whose secret is shown once and works against the API', async () => {
    const { client } = await projectPerson();
    await client.get('/tokens/new?type=project');
    const issued = await issueForm(client, { ...projectToken, binding: projectId });
    expect(issued.status).toBe(200);
    const secret = secretOf(issued.text)!;
    expect(secret).toMatch(/^aop_/);
    expect(issued.headers.get('cache-control')).toBe('no-store');
    expect((await api.request('GET', `/api/v1/projects/${projectId}/inputs`, { token: secret })).status).toBe(200);
    expect((await client.get('/')).text).not.toContain(secret);
  });

  it('offers only the projects the person can access as bindings', async () => {
    const { client } = await projectPerson();
    const otherProject = await fixtures.project(organisationId);
    const form = await client.get('/tokens/new?type=project');
    expect(form.text).toContain(`value="${projectId}"`);
    expect(form.text).not.toContain(otherProject);
  });

  it('starts read-only and never preselects approval or publication', async () => {
    const { client } = await projectPerson();
    const form = (await client.get('/tokens/new?type=project')).text;
    expect(form).toMatch(/id="mode-read-only" name="read_only" value="true" checked=""/);
    expect(form).toMatch(/id="ability-approve-edits"[^>]*data-explicit="true"/);
    expect(form).not.toMatch(/id="ability-approve-edits"[^>]*checked/);
  });

  it('refuses a permission without its dependency with the rule, and issues nothing', async () => {
    const { client, user } = await projectPerson();
    await client.get('/tokens/new?type=project');
    const refused = await issueForm(client, { ...projectToken, binding: projectId, abilities: ['approve-edits'] });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('approve-edits needs view-controls selected too');
    expect(await userTokens(user.id)).toEqual([]);
  });

  it('refuses an expiry beyond the type lifetime', async () => {
    const { client } = await projectPerson();
    await client.get('/tokens/new?type=project');
    const refused = await issueForm(client, { ...projectToken, binding: projectId, read_only: 'false', expires: inDays(45) });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('beyond the maximum lifetime of 30 days');
  });

  it('refuses a form without the session form token, and issues nothing', async () => {
    const { client, user } = await projectPerson();
    const refused = await client.postForm('/tokens', { ...projectToken, binding: projectId, abilities: 'view-projects' });
    expect(refused.status).toBe(403);
    expect(await userTokens(user.id)).toEqual([]);
  });

  it('refuses a form posted from another origin, whatever it carries', async () => {
    const { client, user } = await projectPerson();
    await client.get('/tokens/new?type=project');
    const refused = await client.postForm(
      '/tokens',
      { csrf: client.csrf(), ...projectToken, binding: projectId, abilities: 'view-projects' },
      { Origin: 'https://attacker.example' },
    );
    expect(refused.status).toBe(403);
    expect(await userTokens(user.id)).toEqual([]);
  });

  it('asks for a passkey when the confirmation is stale, then completes the action', async () => {
    const { client, user, passkey } = await projectPerson();
    await client.get('/tokens/new?type=project');
    const session = keys.consoleSession(sha256(client.jar.get('__Host-aop_session')!));
    await updateIf(session, { confirmed_at: new Date(Date.now() - 6 * 60_000).toISOString() }, itemPresent());
    const asked = await issueForm(client, { ...projectToken, binding: projectId });
    expect(asked.status).toBe(403);
    expect(asked.text).toContain('Confirm it is you');
    expect(asked.text).toContain(`value="${projectId}"`);
    expect(await userTokens(user.id)).toEqual([]);
    expect((await confirmWith(client, passkey, api.base)).status).toBe(200);
    const issued = await issueForm(client, { ...projectToken, binding: projectId });
    expect(issued.status).toBe(200);
    expect(await userTokens(user.id)).toHaveLength(1);
  });

  it('audits issuance with the token id and never its secret or hash', async () => {
    const { client, user } = await projectPerson();
    await client.get('/tokens/new?type=project');
    const secret = secretOf((await issueForm(client, { ...projectToken, binding: projectId })).text)!;
    const [token] = await userTokens(user.id);
    const events = (await auditRecords('installation')).filter((r) => r.kind === 'TOKEN_ISSUED' && r.token_id === token!.id);
    expect(events).toHaveLength(1);
    expect(JSON.stringify(events)).not.toContain(secret);
    expect(JSON.stringify(events)).not.toContain(token!.secret_hash);
  });
});

describe('console token list', () => {
  it('shows last use approximately, written once an hour at most', async () => {
    const { client, user } = await projectPerson();
    await client.get('/tokens/new?type=project');
    const secret = secretOf((await issueForm(client, { ...projectToken, binding: projectId })).text)!;
    expect((await client.get('/')).text).toContain('never');
    await api.request('GET', `/api/v1/projects/${projectId}/inputs`, { token: secret });
    const [first] = await userTokens(user.id);
    expect(first!.last_used_at).toBeDefined();
    await api.request('GET', `/api/v1/projects/${projectId}/inputs`, { token: secret });
    const [second] = await userTokens(user.id);
    expect(second!.last_used_at).toBe(first!.last_used_at);
    expect((await client.get('/')).text).toContain('within the last hour');
  });
});

describe('console token revocation', () => {
  it("revokes the owner's own token: the API refuses it at the next request", async () => {
    const { client, user } = await projectPerson();
    await client.get('/tokens/new?type=project');
    const secret = secretOf((await issueForm(client, { ...projectToken, binding: projectId })).text)!;
    const [token] = await userTokens(user.id);
    await client.get('/');
    const revoked = await client.postForm(`/tokens/${token!.id}/revoke`, { csrf: client.csrf() });
    expect(revoked.status).toBe(303);
    expect((await api.request('GET', `/api/v1/projects/${projectId}/inputs`, { token: secret })).status).toBe(401);
    const events = (await auditRecords('installation')).filter((r) => r.kind === 'TOKEN_REVOKED' && r.token_id === token!.id);
    expect(events).toMatchObject([{ actor_id: user.id, details: { owner_id: user.id } }]);
  });

  it("answers another person's token as missing to someone without manage-users, and leaves it working", async () => {
    const owner = await projectPerson();
    const stranger = await projectPerson();
    const secret = await fixtures.token(owner.user.id, 'project', { projectId, abilities: ['view-projects'], readOnly: true });
    const [token] = await userTokens(owner.user.id);
    const refused = await stranger.client.postForm(`/tokens/${token!.id}/revoke`, { csrf: stranger.client.csrf() });
    expect(refused.status).toBe(404);
    expect((await api.request('GET', `/api/v1/projects/${projectId}/inputs`, { token: secret })).status).toBe(200);
  });

  it('never authenticates the API from a console cookie', async () => {
    const { client } = await projectPerson();
    const cookie = [...client.jar].map(([n, v]) => `${n}=${v}`).join('; ');
    const answer = await api.request('GET', `/api/v1/projects/${projectId}/inputs`, { headers: { Cookie: cookie } });
    expect(answer.status).toBe(401);
  });

  it('issues an Administration token only to a person holding manage-org-hierarchy at the installation', async () => {
    const { client, user } = await consoleUser(api.base);
    await client.get('/tokens/new?type=administration');
    const adminToken = { token_type: 'administration', name: 'Admin', abilities: ['manage-org-hierarchy'], read_only: 'true', expires: inDays(5) };
    expect((await issueForm(client, adminToken)).status).toBe(422);
    await grantAccess(user.id, { kind: 'installation' }, permissionsOf('administration'), new Date());
    await client.get('/tokens/new?type=administration');
    const issued = await issueForm(client, adminToken);
    expect(issued.status).toBe(200);
    expect((await api.request('GET', '/api/v1/organisations', { token: secretOf(issued.text)! })).status).toBe(200);
  });
});

describe('console pages', () => {
  it('answers with a strict Content-Security-Policy, no framing and a request id', async () => {
    const { client } = await projectPerson();
    const page = await client.get('/');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    expect(page.headers.get('x-request-id')).toMatch(/^[0-9A-Z]{26}$/);
    expect(page.text).not.toMatch(/<script(?![^>]*src=)/);
  });

  it('escapes what people typed: a token name is text, never markup', async () => {
    const { client } = await projectPerson();
    await client.get('/tokens/new?type=project');
    await issueForm(client, { ...projectToken, binding: projectId, name: '<img src=x onerror=alert(1)>' });
    const list = await client.get('/');
    expect(list.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(list.text).not.toContain('<img src=x');
  });

  it('is served without a session only at sign-in, enrolment, the reference and the assets', async () => {
    const anonymous = consoleClient(api.base);
    for (const path of ['/', '/tokens/new', '/passkeys', '/admin/users']) expect((await anonymous.get(path)).status).toBe(303);
    for (const path of ['/sign-in', '/enrol', '/reference', '/assets/console.js']) expect((await anonymous.get(path)).status).toBe(200);
  });

  it('names its own icon on every page, so that a browser does not ask the API for /favicon.ico', async () => {
    const anonymous = consoleClient(api.base);
    for (const path of ['/sign-in', '/enrol', '/reference']) {
      expect((await anonymous.get(path)).text).toContain('<link rel="icon" type="image/svg+xml" href="/console/assets/favicon.svg"/>');
    }
    const icon = await anonymous.get('/assets/favicon.svg');
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(icon.text).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  });
});
