import { openTask, TITLE_MAX, type StoredTask } from '../domain/tasks.js';
import { singleLine } from '../domain/validation.js';
import { auditWrite } from '../store/audit.js';
import { asAccess, asUser } from '../store/identity.js';
import { keys } from '../store/keys.js';
import { getMany, keyString } from '../store/read.js';
import { createTaskWrites } from '../store/tasks.js';
import { commit } from '../store/transact.js';

/** Bad input to `admin task create`: one line on stderr, exit code 2. */
export class TaskRefusedError extends Error {
  override readonly name = 'TaskRefusedError';
}

const Title = singleLine().trim().min(1).max(TITLE_MAX);

/**
 * A manual task, as the web interface would create one: in an existing project, related only to
 * a control of that project, assigned only to an active user who may see the project's tasks.
 */
export async function createManualTask(input: { projectId: string; title: string; controlId?: string; assigneeId?: string }, now: Date): Promise<StoredTask> {
  const title = Title.safeParse(input.title);
  if (!title.success) throw new TaskRefusedError(`--title must be one line of 1 to ${TITLE_MAX} characters`);
  const wanted = [
    keys.project(input.projectId),
    ...(input.controlId ? [keys.control(input.projectId, input.controlId)] : []),
    ...(input.assigneeId ? [keys.user(input.assigneeId), keys.projectAccess(input.assigneeId, input.projectId)] : []),
  ];
  const found = await getMany(wanted);
  const item = (k: ReturnType<typeof keys.project>) => found.get(keyString(k));
  const project = item(keys.project(input.projectId));
  if (!project) throw new TaskRefusedError(`no project ${input.projectId}`);
  if (input.controlId && !item(keys.control(input.projectId, input.controlId)))
    throw new TaskRefusedError(`control ${input.controlId} is not a control of project ${input.projectId}`);
  if (input.assigneeId) {
    const user = asUser(item(keys.user(input.assigneeId)));
    const access = asAccess(item(keys.projectAccess(input.assigneeId, input.projectId)));
    if (user?.status !== 'active' || !(access?.permissions ?? []).includes('view-tasks'))
      throw new TaskRefusedError(`user ${input.assigneeId} is not an active user with view-tasks on project ${input.projectId}`);
  }
  const task = openTask(
    { project_id: input.projectId, kind: 'manual', title: title.data, related_control_id: input.controlId, assignee_user_id: input.assigneeId },
    now,
  );
  const audit = {
    kind: 'TASK_CREATED',
    request_id: `cli-${task.id}`,
    method: 'CLI',
    route: 'admin task create',
    status: 0,
    actor_id: 'operator',
    ...(typeof project.organisation_id === 'string' ? { organisation_id: project.organisation_id } : {}),
    target: { project: task.project_id, task: task.id },
  };
  const gone = () => new TaskRefusedError(`control ${input.controlId} is not a control of project ${input.projectId}`);
  await commit([...createTaskWrites(task, undefined, gone), auditWrite(audit, now)]);
  return task;
}
