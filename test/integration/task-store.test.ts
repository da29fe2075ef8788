import { beforeAll, describe, expect, it } from 'vitest';
import { ulid } from 'ulid';
import { getOne } from '../../lib/store/read.js';
import { assignTaskWrite, commentCount, createCommentWrites, createTaskWrites, isAvailableTask, taskKeys, toTask } from '../../lib/store/tasks.js';
import { commit } from '../../lib/store/transact.js';
import { fixtures } from '../support/api.js';
import { useTestServices } from '../support/services.js';
import { storedControl, storedTask } from '../support/tasks.js';

let organisationId: string;

beforeAll(async () => {
  await useTestServices();
  organisationId = await fixtures.organisation(await fixtures.user());
});

const comment = (projectId: string, taskId: string) => ({
  id: ulid(),
  task_id: taskId,
  project_id: projectId,
  author_user_id: ulid(),
  comment: 'Meanwhile.',
  created_at: new Date().toISOString(),
});

describe('task store', () => {
  it('keeps a comment counted that lands between a claim read and its write', async () => {
    const projectId = await fixtures.project(organisationId);
    const created = await storedTask(projectId);
    const read = toTask((await getOne(taskKeys.task(projectId, created.id)))!);
    const claim = assignTaskWrite(read, ulid());
    await commit(createCommentWrites(comment(projectId, created.id)));
    await commit([claim]);
    expect(commentCount(await getOne(taskKeys.task(projectId, created.id)))).toBe(1);
  });

  it('refuses to create a task related to a control of another project', async () => {
    const projectId = await fixtures.project(organisationId);
    const foreign = await storedControl(await fixtures.project(organisationId));
    const task = { ...(await storedTask(projectId)), id: ulid(), related_control_id: foreign };
    await expect(commit(createTaskWrites(task))).rejects.toMatchObject({ status: 404 });
    expect(await getOne(taskKeys.task(projectId, task.id))).toBeUndefined();
  });

  it('marks a task related to a control of its own project as available', async () => {
    const projectId = await fixtures.project(organisationId);
    const task = await storedTask(projectId, { related_control_id: await storedControl(projectId) });
    expect(isAvailableTask(await getOne(taskKeys.task(projectId, task.id)))).toBe(true);
  });
});
