import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { permissionsOf, type Permission } from '../../lib/domain/permissions.js';
import { createUser, revokeAccess, setUserStatus } from '../../lib/store/identity.js';
import { fixtures, startApi, type Api } from '../support/api.js';
import { GENEROUS_BUDGETS } from '../support/projects.js';

let api: Api;

beforeAll(async () => {
  api = await startApi(GENEROUS_BUDGETS);
});
afterAll(() => api.stop());

/** An organisation of its own (so that its members are exactly what the test makes), a project in it and a project credential there. */
async function world(abilities: readonly Permission[] = permissionsOf('project')) {
  const op = await fixtures.operator();
  const projectId = await fixtures.project(op.organisationId);
  await fixtures.grant(op.userId, { kind: 'project', id: projectId }, permissionsOf('project'));
  const token = await fixtures.token(op.userId, 'project', { projectId, abilities });
  const list = (query = '') => api.request('GET', `/api/v1/projects/${projectId}/document-owners${query}`, { token });
  return { op, projectId, token, list };
}

async function named(name: string) {
  return (await createUser({ email: `${name.toLowerCase()}.${Date.now()}.${Math.random()}@test.invalid`, name, superUser: false }, new Date())).id;
}

const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((m) => m.id);

describe('listDocumentOwners', () => {
  it('lists the members with organisation or project access, identifier and name only, with an exact total', async () => {
    const w = await world();
    const viaOrganisation = await named('Olive');
    await fixtures.grant(viaOrganisation, { kind: 'organisation', id: w.op.organisationId }, ['view-projects']);
    const viaProject = await named('Pat');
    await fixtures.grant(viaProject, { kind: 'project', id: await fixtures.project(w.op.organisationId) }, ['view-controls']);
    const res = await w.list();
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(
      [
        { id: w.op.userId, name: 'Test User' },
        { id: viaOrganisation, name: 'Olive' },
        { id: viaProject, name: 'Pat' },
      ].sort((a, b) => a.id.localeCompare(b.id)),
    );
    expect(res.body.meta).toMatchObject({ total: 3, current_page: 1, page_size: 50 });
  });

  it('leaves out users whose access is in another organisation only', async () => {
    const w = await world();
    const outsider = await named('Otto');
    await fixtures.grant(outsider, { kind: 'organisation', id: await fixtures.organisation(outsider) }, ['view-projects']);
    expect(ids(await w.list())).not.toContain(outsider);
  });

  it('counts a member with several grants in the organisation once', async () => {
    const w = await world();
    const many = await named('Mo');
    await fixtures.grant(many, { kind: 'organisation', id: w.op.organisationId }, ['view-projects']);
    await fixtures.grant(many, { kind: 'project', id: w.projectId }, ['view-controls']);
    const res = await w.list();
    expect(ids(res).filter((id) => id === many)).toHaveLength(1);
    expect(res.body.meta.total).toBe(2);
  });

  it('drops a disabled user from the list and the total, and takes them back when active again', async () => {
    const w = await world();
    const user = await named('Dee');
    await fixtures.grant(user, { kind: 'organisation', id: w.op.organisationId }, ['view-projects']);
    await setUserStatus(user, 'disabled');
    const res = await w.list();
    expect(ids(res)).toEqual([w.op.userId]);
    expect(res.body.meta.total).toBe(1);
    await setUserStatus(user, 'active');
    expect((await w.list()).body.meta.total).toBe(2);
  });

  it('drops a deleted user', async () => {
    const w = await world();
    const user = await named('Del');
    await fixtures.grant(user, { kind: 'organisation', id: w.op.organisationId }, ['view-projects']);
    await setUserStatus(user, 'deleted');
    expect(ids(await w.list())).toEqual([w.op.userId]);
  });

  it('keeps a member while any access in the organisation remains, and drops them with the last', async () => {
    const w = await world();
    const user = await named('Rev');
    await fixtures.grant(user, { kind: 'organisation', id: w.op.organisationId }, ['view-projects']);
    await fixtures.grant(user, { kind: 'project', id: w.projectId }, ['view-controls']);
    await revokeAccess(user, { kind: 'organisation', id: w.op.organisationId });
    expect(ids(await w.list())).toContain(user);
    await revokeAccess(user, { kind: 'project', id: w.projectId });
    const res = await w.list();
    expect(ids(res)).not.toContain(user);
    expect(res.body.meta.total).toBe(1);
  });

  it('pages in identifier order with the total of every page', async () => {
    const w = await world();
    for (const name of ['A', 'B']) await fixtures.grant(await named(name), { kind: 'organisation', id: w.op.organisationId }, ['view-projects']);
    const all = ids(await w.list());
    const second = await w.list('?page[number]=2&page[size]=2');
    expect(ids(second)).toEqual(all.slice(2, 4));
    expect(second.body.meta).toMatchObject({ total: 3, current_page: 2, page_size: 2 });
  });

  it('answers 422 for a page size above 100', async () => {
    const w = await world();
    const res = await w.list('?page[size]=101');
    expect(res.status).toBe(422);
    expect(res.body.errors[0].pointer).toBe('/query/page[size]');
  });

  it('answers 401 for an organisation credential', async () => {
    const w = await world();
    expect((await api.request('GET', `/api/v1/projects/${w.projectId}/document-owners`, { token: w.op.org })).status).toBe(401);
  });

  it('answers 403 without view-controls', async () => {
    const w = await world(['view-projects']);
    expect((await w.list()).status).toBe(403);
  });

  it('answers 404 for another project than the credential is bound to', async () => {
    const w = await world();
    const other = await fixtures.project(w.op.organisationId);
    expect((await api.request('GET', `/api/v1/projects/${other}/document-owners`, { token: w.token })).status).toBe(404);
  });
});
