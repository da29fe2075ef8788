import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { ulid } from 'ulid';
import type { StoredTask } from '../../lib/domain/tasks.js';
import { ddb, tableName } from '../../lib/store/client.js';
import { keys } from '../../lib/store/keys.js';
import { createTaskWrites, taskItem } from '../../lib/store/tasks.js';
import { commit } from '../../lib/store/transact.js';

const newTask = (projectId: string, fields: Partial<StoredTask>): StoredTask => ({
  id: ulid(),
  project_id: projectId,
  kind: 'manual',
  title: 'Confirm the system owner',
  status: 'open',
  related_control_id: null,
  subject: null,
  assignee_user_id: null,
  created_at: new Date().toISOString(),
  closed_at: null,
  version: 1,
  ...fields,
});

/** An open, unassigned manual task as the service stores it, with any field overridden. */
export async function storedTask(projectId: string, fields: Partial<StoredTask> = {}): Promise<StoredTask> {
  const task = newTask(projectId, fields);
  await commit(createTaskWrites(task));
  return task;
}

/**
 * A task related to a control of another project, as no creation path stores it: written
 * directly, without the proof, and uncounted.
 */
export async function unprovenTask(projectId: string, controlProjectId: string): Promise<StoredTask> {
  const task = newTask(projectId, { related_control_id: await storedControl(controlProjectId) });
  const { related_control_verified: _, ...item } = taskItem(task);
  await ddb().send(new PutCommand({ TableName: tableName(), Item: item }));
  return task;
}

/** A control item of a project: only its existence matters to tasks. */
export async function storedControl(projectId: string): Promise<string> {
  const id = ulid();
  await ddb().send(new PutCommand({ TableName: tableName(), Item: { ...keys.control(projectId, id), entity: 'control', id, project_id: projectId } }));
  return id;
}
