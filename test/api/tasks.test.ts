import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import { permissionsOf, type Permission } from '../../lib/domain/permissions.js';
import { etagFor } from '../../lib/operations/kernel/etag.js';
import { fixtures, startApi, type Api } from '../support/api.js';
import { GENEROUS_BUDGETS } from '../support/projects.js';
import { storedControl, storedTask, unprovenTask } from '../support/tasks.js';

let api: Api;
let op: Awaited<ReturnType<typeof fixtures.operator>>;
let projectId: string;
let manager: string;
let viewer: string;
let readOnly: string;
let other: { userId: string; token: string };

async function tokenFor(userId: string, abilities: Permission[], readOnlyToken = false) {
  await fixtures.grant(userId, { kind: 'project', id: projectId }, permissionsOf('project'));
  return fixtures.token(userId, 'project', { projectId, abilities, readOnly: readOnlyToken });
}

beforeAll(async () => {
  api = await startApi(GENEROUS_BUDGETS);
  op = await fixtures.operator();
  projectId = await fixtures.project(op.organisationId);
  manager = await tokenFor(op.userId, permissionsOf('project'));
  viewer = await tokenFor(op.userId, ['view-tasks']);
  readOnly = await tokenFor(op.userId, permissionsOf('project'), true);
  const otherUser = await fixtures.user();
  other = { userId: otherUser, token: await tokenFor(otherUser, ['view-tasks']) };
});
afterAll(() => api.stop());

const url = (rest = '', project = projectId) => `/api/v1/projects/${project}/tasks${rest}`;
const read = (taskId: string, token = manager) => api.request('GET', url(`/${taskId}`), { token });
async function act(taskId: string, action: 'claim' | 'release', token = manager, etag?: string) {
  const ifMatch = etag ?? (await read(taskId, token)).headers.get('etag')!;
  return api.request('POST', url(`/${taskId}/${action}`), { token, body: {}, headers: { 'If-Match': ifMatch } });
}

describe('getTask', () => {
  it('reads a task with its ETag', async () => {
    const task = await storedTask(projectId);
    const res = await read(task.id);
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toMatch(/^"1-/);
    expect(res.body.data).toEqual({
      id: task.id,
      project_id: projectId,
      kind: 'manual',
      title: task.title,
      status: 'open',
      related_control_id: null,
      subject: null,
      assignee_user_id: null,
      created_at: task.created_at,
      closed_at: null,
      redacted_fields: [],
    });
  });

  it('omits the related control without view-controls and names it in redacted_fields', async () => {
    const task = await storedTask(projectId, { related_control_id: await storedControl(projectId) });
    const res = await read(task.id, viewer);
    expect(res.body.data).not.toHaveProperty('related_control_id');
    expect(res.body.data.redacted_fields).toEqual(['related_control_id']);
  });

  it('gives the redacted view an ETag of its own', async () => {
    const task = await storedTask(projectId);
    expect((await read(task.id, viewer)).headers.get('etag')).not.toBe((await read(task.id)).headers.get('etag'));
  });

  it('answers 404 for a task whose related control lies in another project', async () => {
    const task = await unprovenTask(projectId, await fixtures.project(op.organisationId));
    expect((await read(task.id)).status).toBe(404);
  });

  it('answers 404 for an unknown task', async () => {
    expect((await read(newUlid())).status).toBe(404);
  });

  it('answers 403 without view-tasks', async () => {
    const task = await storedTask(projectId);
    const token = await tokenFor(op.userId, ['view-controls']);
    expect((await read(task.id, token)).status).toBe(403);
  });
});

describe('listTasks', () => {
  it('lists the tasks oldest first with the exact total, filtered by status', async () => {
    const project = await fixtures.project(op.organisationId);
    await fixtures.grant(op.userId, { kind: 'project', id: project }, permissionsOf('project'));
    const token = await fixtures.token(op.userId, 'project', { projectId: project, abilities: permissionsOf('project') });
    const first = await storedTask(project);
    const second = await storedTask(project, { status: 'closed', closed_at: new Date().toISOString() });
    const third = await storedTask(project);
    const all = await api.request('GET', url('?page[size]=2', project), { token });
    expect(all.body.data.map((t: { id: string }) => t.id)).toEqual([first.id, second.id]);
    expect(all.body.meta.total).toBe(3);
    const open = await api.request('GET', url('?filter[status]=open', project), { token });
    expect(open.body.data.map((t: { id: string }) => t.id)).toEqual([first.id, third.id]);
    expect(open.body.meta.total).toBe(2);
  });

  it('leaves out a task whose related control lies in another project, from the page and the total', async () => {
    const project = await fixtures.project(op.organisationId);
    await fixtures.grant(op.userId, { kind: 'project', id: project }, permissionsOf('project'));
    const token = await fixtures.token(op.userId, 'project', { projectId: project, abilities: permissionsOf('project') });
    const shown = await storedTask(project);
    await unprovenTask(project, await fixtures.project(op.organisationId));
    const res = await api.request('GET', url('?filter[status]=open', project), { token });
    expect(res.body.data.map((t: { id: string }) => t.id)).toEqual([shown.id]);
    expect(res.body.meta.total).toBe(1);
  });

  it('answers 422 for an unknown status filter', async () => {
    const res = await api.request('GET', url('?filter[status]=done'), { token: manager });
    expect(res.status).toBe(422);
  });
});

describe('claimTask', () => {
  it('makes the caller the assignee and moves the ETag', async () => {
    const task = await storedTask(projectId);
    const res = await act(task.id, 'claim', viewer);
    expect(res.status).toBe(200);
    expect(res.body.data.assignee_user_id).toBe(op.userId);
    expect(res.headers.get('etag')).toMatch(/^"2-/);
  });

  it("leaves the caller's own claim as it is (200, same ETag)", async () => {
    const task = await storedTask(projectId, { assignee_user_id: op.userId });
    const before = await read(task.id);
    const res = await act(task.id, 'claim', manager, before.headers.get('etag')!);
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe(before.headers.get('etag'));
  });

  it("refuses to take over another's claim without manage-tasks (403 task_assigned_to_another)", async () => {
    const task = await storedTask(projectId, { assignee_user_id: op.userId });
    const res = await act(task.id, 'claim', other.token);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('task_assigned_to_another');
  });

  it("takes over another's claim with manage-tasks", async () => {
    const task = await storedTask(projectId, { assignee_user_id: other.userId });
    expect((await act(task.id, 'claim')).body.data.assignee_user_id).toBe(op.userId);
  });

  it('answers 412 for a stale ETag', async () => {
    const task = await storedTask(projectId);
    const stale = (await read(task.id)).headers.get('etag')!;
    await act(task.id, 'claim');
    expect((await act(task.id, 'release', manager, stale)).status).toBe(412);
  });

  it('lets one of two claims with the same ETag win; the other is 412', async () => {
    const task = await storedTask(projectId);
    const etag = (await read(task.id)).headers.get('etag')!;
    const [a, b] = await Promise.all([act(task.id, 'claim', manager, etag), act(task.id, 'claim', manager, etag)]);
    expect([a.status, b.status].sort()).toEqual([200, 412]);
  });

  it('answers 428 without If-Match', async () => {
    const task = await storedTask(projectId);
    expect((await api.request('POST', url(`/${task.id}/claim`), { token: manager, body: {} })).status).toBe(428);
  });

  it('answers 404 for an unknown task', async () => {
    expect((await act(newUlid(), 'claim', manager, '"1-00000000000000000000"')).status).toBe(404);
  });

  it('refuses a read-only credential (403)', async () => {
    const task = await storedTask(projectId);
    expect((await act(task.id, 'claim', readOnly)).status).toBe(403);
  });

  it('refuses a closed task (403 task_closed)', async () => {
    const task = await storedTask(projectId, { status: 'closed', closed_at: new Date().toISOString() });
    const res = await act(task.id, 'claim');
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('task_closed');
  });

  it('answers 404 for a task whose related control lies in another project', async () => {
    const task = await unprovenTask(projectId, await fixtures.project(op.organisationId));
    // The ETag a read would give if the task were readable: the claim must still refuse it.
    expect((await act(task.id, 'claim', manager, etagFor('task', task.id, 1))).status).toBe(404);
  });

  it('answers 404, not 412, for such a task under a stale ETag', async () => {
    const task = await unprovenTask(projectId, await fixtures.project(op.organisationId));
    expect((await act(task.id, 'claim', manager, etagFor('task', task.id, 7))).status).toBe(404);
  });

  it('refuses a task of an archived project (403 project_archived)', async () => {
    const archived = await fixtures.project(op.organisationId, { archived: true });
    await fixtures.grant(op.userId, { kind: 'project', id: archived }, permissionsOf('project'));
    const token = await fixtures.token(op.userId, 'project', { projectId: archived, abilities: permissionsOf('project') });
    const task = await storedTask(archived);
    const etag = (await api.request('GET', url(`/${task.id}`, archived), { token })).headers.get('etag')!;
    const res = await api.request('POST', url(`/${task.id}/claim`, archived), { token, body: {}, headers: { 'If-Match': etag } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('project_archived');
  });

  it('refuses a body other than the empty object (422)', async () => {
    const task = await storedTask(projectId);
    const etag = (await read(task.id)).headers.get('etag')!;
    const res = await api.request('POST', url(`/${task.id}/claim`), {
      token: manager,
      body: { assignee_user_id: other.userId },
      headers: { 'If-Match': etag },
    });
    expect(res.status).toBe(422);
  });
});

describe('releaseTask', () => {
  it("clears the caller's claim", async () => {
    const task = await storedTask(projectId, { assignee_user_id: op.userId });
    const res = await act(task.id, 'release', viewer);
    expect(res.status).toBe(200);
    expect(res.body.data.assignee_user_id).toBeNull();
  });

  it("refuses to release another's claim without manage-tasks (403 task_assigned_to_another)", async () => {
    const task = await storedTask(projectId, { assignee_user_id: op.userId });
    expect((await act(task.id, 'release', other.token)).body.code).toBe('task_assigned_to_another');
  });

  it("releases another's claim with manage-tasks", async () => {
    const task = await storedTask(projectId, { assignee_user_id: other.userId });
    expect((await act(task.id, 'release')).body.data.assignee_user_id).toBeNull();
  });

  it('leaves an unclaimed task as it is (200, same ETag)', async () => {
    const task = await storedTask(projectId);
    const etag = (await read(task.id)).headers.get('etag')!;
    const res = await act(task.id, 'release', manager, etag);
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe(etag);
  });

  it('refuses a closed task (403 task_closed)', async () => {
    const task = await storedTask(projectId, { status: 'closed', assignee_user_id: op.userId, closed_at: new Date().toISOString() });
    const res = await act(task.id, 'release');
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('task_closed');
  });
});
