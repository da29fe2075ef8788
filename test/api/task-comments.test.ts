import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import { permissionsOf } from '../../lib/domain/permissions.js';
import { fixtures, startApi, type Api } from '../support/api.js';
import { GENEROUS_BUDGETS } from '../support/projects.js';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../../lib/store/client.js';
import { keys } from '../../lib/store/keys.js';
import { storedTask, unprovenTask } from '../support/tasks.js';

let api: Api;
let op: Awaited<ReturnType<typeof fixtures.operator>>;
let projectId: string;
let token: string;

beforeAll(async () => {
  api = await startApi(GENEROUS_BUDGETS);
  op = await fixtures.operator();
  projectId = await fixtures.project(op.organisationId);
  await fixtures.grant(op.userId, { kind: 'project', id: projectId }, permissionsOf('project'));
  token = await fixtures.token(op.userId, 'project', { projectId, abilities: ['view-tasks'] });
});
afterAll(() => api.stop());

const url = (taskId: string, rest = '') => `/api/v1/projects/${projectId}/tasks/${taskId}/comments${rest}`;
const post = (taskId: string, body: unknown, key: string | null = newUlid(), as = token) =>
  api.request('POST', url(taskId), { token: as, body, headers: key === null ? {} : { 'Idempotency-Key': key } });

describe('createTaskComment', () => {
  it('records the comment with its author and answers 201', async () => {
    const task = await storedTask(projectId);
    const res = await post(task.id, { comment: 'The owner is on leave until Monday.\nAsk the deputy.' });
    expect(res.status).toBe(201);
    expect(res.headers.get('idempotency-replayed')).toBe('false');
    expect(res.body.data).toMatchObject({ task_id: task.id, author_user_id: op.userId, comment: 'The owner is on leave until Monday.\nAsk the deputy.' });
  });

  it('replays the same comment under the same key without adding another', async () => {
    const task = await storedTask(projectId);
    const key = newUlid();
    const first = await post(task.id, { comment: 'Once.' }, key);
    const again = await post(task.id, { comment: 'Once.' }, key);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
    expect((await api.request('GET', url(task.id), { token })).body.meta.total).toBe(1);
  });

  it('answers 409 for another payload under the same key', async () => {
    const task = await storedTask(projectId);
    const key = newUlid();
    await post(task.id, { comment: 'First.' }, key);
    expect((await post(task.id, { comment: 'Second.' }, key)).status).toBe(409);
  });

  it('answers 400 without an Idempotency-Key', async () => {
    const task = await storedTask(projectId);
    expect((await post(task.id, { comment: 'No key.' }, null)).status).toBe(400);
  });

  it('answers 422 for a comment over 5000 characters', async () => {
    const task = await storedTask(projectId);
    const res = await post(task.id, { comment: 'x'.repeat(5001) });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].pointer).toBe('/comment');
  });

  it('answers 422 for a blank comment', async () => {
    const task = await storedTask(projectId);
    expect((await post(task.id, { comment: ' \n ' })).status).toBe(422);
  });

  it('takes a comment on a closed task', async () => {
    const task = await storedTask(projectId, { status: 'closed', closed_at: new Date().toISOString() });
    expect((await post(task.id, { comment: 'Closed, noted for next year.' })).status).toBe(201);
  });

  it('answers 404 for an unknown task', async () => {
    expect((await post(newUlid(), { comment: 'Lost.' })).status).toBe(404);
  });

  it('answers 404 for a task whose related control lies in another project', async () => {
    const task = await unprovenTask(projectId, await fixtures.project(op.organisationId));
    expect((await post(task.id, { comment: 'Hidden.' })).status).toBe(404);
  });

  it('refuses the replay of a comment once the project is archived (403 project_archived)', async () => {
    const project = await fixtures.project(op.organisationId);
    await fixtures.grant(op.userId, { kind: 'project', id: project }, permissionsOf('project'));
    const own = await fixtures.token(op.userId, 'project', { projectId: project, abilities: ['view-tasks'] });
    const task = await storedTask(project);
    const send = () =>
      api.request('POST', `/api/v1/projects/${project}/tasks/${task.id}/comments`, {
        token: own,
        body: { comment: 'Before.' },
        headers: { 'Idempotency-Key': key },
      });
    const key = newUlid();
    expect((await send()).status).toBe(201);
    await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.project(project),
        UpdateExpression: 'SET archived = :t',
        ExpressionAttributeValues: { ':t': true },
      }),
    );
    const res = await send();
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('project_archived');
  });

  it('refuses a read-only credential (403)', async () => {
    const task = await storedTask(projectId);
    const readOnly = await fixtures.token(op.userId, 'project', { projectId, abilities: ['view-tasks'], readOnly: true });
    expect((await post(task.id, { comment: 'Read only.' }, newUlid(), readOnly)).status).toBe(403);
  });
});

describe('listTaskComments', () => {
  it('lists the comments oldest first with the exact total', async () => {
    const task = await storedTask(projectId);
    for (const comment of ['one', 'two', 'three']) await post(task.id, { comment });
    const res = await api.request('GET', url(task.id, '?page[size]=2&page[number]=2'), { token });
    expect(res.status).toBe(200);
    expect(res.body.data.map((c: { comment: string }) => c.comment)).toEqual(['three']);
    expect(res.body.meta).toMatchObject({ total: 3, current_page: 2, page_size: 2 });
  });

  it("lists only this task's comments", async () => {
    const [a, b] = [await storedTask(projectId), await storedTask(projectId)];
    await post(a.id, { comment: 'On a.' });
    const res = await api.request('GET', url(b.id), { token });
    expect(res.body.data).toEqual([]);
    expect(res.body.meta.total).toBe(0);
  });

  it('answers 404 for an unknown task', async () => {
    expect((await api.request('GET', url(newUlid()), { token })).status).toBe(404);
  });

  it('answers 404 for a task whose related control lies in another project', async () => {
    const task = await unprovenTask(projectId, await fixtures.project(op.organisationId));
    expect((await api.request('GET', url(task.id), { token })).status).toBe(404);
  });
});
