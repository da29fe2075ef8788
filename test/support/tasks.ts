import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { StoredTask } from '../../lib/domain/tasks.js';
import { ddb, tableName } from '../../lib/store/client.js';
import { taskItem } from '../../lib/store/tasks.js';
import { buildTask, createControl, createTask } from './factories.js';

/** An open, unassigned manual task as the service stores it, with any field overridden. */
export const storedTask = (projectId: string, fields: Partial<StoredTask> = {}): Promise<StoredTask> => createTask({ ...fields, project_id: projectId });

/**
 * A task related to a control of another project, as no creation path stores it: written
 * directly, without the proof, and uncounted.
 */
export async function unprovenTask(projectId: string, controlProjectId: string): Promise<StoredTask> {
  const task = buildTask({ project_id: projectId, related_control_id: await storedControl(controlProjectId) });
  const { related_control_verified: _, ...item } = taskItem(task);
  await ddb().send(new PutCommand({ TableName: tableName(), Item: item }));
  return task;
}

/** A control of a project: only its existence matters to tasks. */
export async function storedControl(projectId: string): Promise<string> {
  return (await createControl({ project_id: projectId })).id;
}
