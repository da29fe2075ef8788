import * as z from 'zod';
import { claimed, EmptyBody, released, Task, TASK_STATUSES, taskView, type StoredTask } from '../../domain/tasks.js';
import { keys } from '../../store/keys.js';
import { assignTaskWrite, taskCount, taskKeys, tasksPage } from '../../store/tasks.js';
import { NoQuery, PageQuery } from '../kernel/common.js';
import type { OperationContext } from '../kernel/operation.js';
import { operation } from './declare.js';
import { boundProjectOf, ProjectParams, projectStillEditable } from '../projects/access.js';
import { changeableTask, detail, taskEtag, storedTaskOf, TaskParams, TASKS_PATH, taskPrefetch } from './access.js';
import { taskCommentOperations } from './comments.js';
import { requireIfMatch } from '../kernel/etag.js';
import { once } from '../../domain/validation.js';

const ListQuery = once(() =>
  PageQuery().extend({
    'filter[status]': z.enum(TASK_STATUSES).optional().meta({ description: 'Only open or only closed tasks.' }),
  }),
);

export const listTasks = operation({
  id: 'listTasks',
  method: 'GET',
  path: TASKS_PATH,
  summary: "List the project's tasks, oldest first, optionally of one status.",
  description: 'Every task of the project is visible with view-tasks. Related-control IDs are omitted without view-controls.',
  credential: ['project'],
  permission: { project: [['view-tasks']] },
  success: 200,
  params: ProjectParams,
  query: ListQuery,
  response: () => z.array(Task()),
  paginated: true,
  sideEffects: [],
  prefetch: ({ project }) => [keys.project(project), taskKeys.counters(project)],
  handle: async (ctx, { params, query }) => {
    boundProjectOf(ctx, params.project);
    const status = query['filter[status]'];
    const page = await tasksPage(params.project, ctx.page, status);
    return {
      data: page.map((t) => taskView(t, ctx.caller.permissions)),
      total: taskCount(ctx.prefetched(taskKeys.counters(params.project)), status),
    };
  },
});

export const getTask = operation({
  id: 'getTask',
  method: 'GET',
  path: `${TASKS_PATH}/{task}`,
  summary: 'Read a task with its ETag.',
  description:
    "Related-control IDs are omitted without view-controls, and the ETag belongs to this credential's view: claimTask and releaseTask name it in If-Match. A task whose related control is not proven to belong to the project is 404.",
  credential: ['project'],
  permission: { project: [['view-tasks']] },
  success: 200,
  params: TaskParams,
  query: NoQuery,
  response: Task,
  etag: true,
  sideEffects: [],
  prefetch: taskPrefetch,
  handle: async (ctx, { params }) => detail(storedTaskOf(ctx, params), ctx.caller),
});

/** Claim and release share everything but the rule that computes the next task. */
function assignment(id: 'claimTask' | 'releaseTask', action: 'claim' | 'release') {
  const rule = action === 'claim' ? claimed : released;
  return operation({
    id,
    method: 'POST',
    path: `${TASKS_PATH}/{task}/${action}`,
    summary:
      action === 'claim'
        ? 'Claim a task: the caller becomes its assignee (empty JSON object body, If-Match the task ETag).'
        : 'Release a task: its assignment is cleared (empty JSON object body, If-Match the task ETag).',
    description:
      action === 'claim'
        ? "Taking over another's claim needs manage-tasks (403 task_assigned_to_another without it). Claiming one's own claim changes nothing (200, same ETag). A closed task is 403 task_closed."
        : "Releasing another's claim needs manage-tasks (403 task_assigned_to_another without it). Releasing an unclaimed task changes nothing (200, same ETag). A closed task is 403 task_closed.",
    credential: ['project'],
    permission: { project: [['view-tasks']] },
    success: 200,
    params: TaskParams,
    query: NoQuery,
    body: { schema: EmptyBody, mediaType: 'application/json' },
    response: Task,
    etag: true,
    ifMatch: true,
    sideEffects: [action === 'claim' ? "Sets the task's assignee to the caller" : "Clears the task's assignee", 'Writes an audit record'],
    prefetch: taskPrefetch,
    handle: async (ctx: OperationContext, { params }) => {
      const current = changeableTask(ctx, params);
      requireIfMatch(ctx.ifMatch, taskEtag(current, ctx.caller));
      const next: StoredTask | undefined = rule(current, ctx.caller.userId, ctx.caller.permissions.has('manage-tasks'));
      const auditTarget = { project: params.project, task: current.id };
      const editable = projectStillEditable(params.project);
      if (!next) return { ...detail(current, ctx.caller), auditTarget, writes: [editable] };
      return {
        ...detail(next, ctx.caller),
        auditTarget,
        auditDetails: { from_assignee: current.assignee_user_id, to_assignee: next.assignee_user_id },
        writes: [assignTaskWrite(current, next.assignee_user_id), editable],
      };
    },
  });
}

export const claimTask = assignment('claimTask', 'claim');
export const releaseTask = assignment('releaseTask', 'release');

export const taskOperations = [listTasks, getTask, claimTask, releaseTask, ...taskCommentOperations];
