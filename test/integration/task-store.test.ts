import { beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import { getOne } from '../../lib/store/read.js';
import { assignTaskWrite, commentCount, createCommentWrites, createTaskWrites, isAvailableTask, taskKeys, toTask } from '../../lib/store/tasks.js';
import { commit } from '../../lib/store/transact.js';
import { buildTask, buildTaskComment, createControl, createOrganisation, createProject, createTask } from '../support/factories.js';
import { useTestServices } from '../support/services.js';

let organisationId: string;

beforeAll(async () => {
  await useTestServices();
  organisationId = (await createOrganisation()).id;
});

/** A project of the file's organisation; its id. */
const newProject = async () => (await createProject({ organisation_id: organisationId })).id;

const comment = (projectId: string, taskId: string) => buildTaskComment({ task_id: taskId, project_id: projectId });

describe('task store', () => {
  it('keeps a comment counted that lands between a claim read and its write', async () => {
    const projectId = await newProject();
    const created = await createTask({ project_id: projectId });
    const read = toTask((await getOne(taskKeys.task(projectId, created.id)))!);
    const claim = assignTaskWrite(read, newUlid());
    await commit(createCommentWrites(comment(projectId, created.id)));
    await commit([claim]);
    expect(commentCount(toTask((await getOne(taskKeys.task(projectId, created.id)))!))).toBe(1);
  });

  it('refuses to create a task related to a control of another project', async () => {
    const projectId = await newProject();
    const foreign = (await createControl({ project_id: await newProject() })).id;
    const task = buildTask({ project_id: projectId, related_control_id: foreign });
    await expect(commit(createTaskWrites(task))).rejects.toMatchObject({ status: 404 });
    expect(await getOne(taskKeys.task(projectId, task.id))).toBeUndefined();
  });

  it('marks a task related to a control of its own project as available', async () => {
    const projectId = await newProject();
    const task = await createTask({ project_id: projectId, related_control_id: (await createControl({ project_id: projectId })).id });
    expect(isAvailableTask(await getOne(taskKeys.task(projectId, task.id)))).toBe(true);
  });
});
