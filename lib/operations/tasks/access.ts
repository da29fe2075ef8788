import type * as z from 'zod';
import { hiddenFields, taskView, type StoredTask } from '../../domain/tasks.js';
import { etagFor } from '../kernel/etag.js';
import { notFound } from '../../errors.js';
import { keys } from '../../store/keys.js';
import { isAvailableTask, type TaskItem, taskKeys, toTask } from '../../store/tasks.js';
import { Ulid } from '../kernel/common.js';
import type { Caller, OperationContext } from '../kernel/operation.js';
import { boundProjectOf, ProjectParams, requireEditable } from '../projects/access.js';
import { once } from '../../domain/validation.js';

/**
 * What every task operation shares: the task from the authentication round trip, its view and
 * ETag for this caller, and the rule that a task without the creation's proof that its related
 * control is a control of the same project is unavailable (404), before any other check.
 */
export const TASKS_PATH = '/projects/{project}/tasks';
export const TaskParams = once(() => ProjectParams().extend({ task: Ulid }));
export type TaskParams = z.output<ReturnType<typeof TaskParams>>;

const ETAG_KIND = 'task';
/** The ETag names the fields the caller's view leaves out, so that views that differ never share one. */
const viewName = (task: StoredTask, caller: Caller) => hiddenFields(task, caller.permissions).join(',');
export const taskEtag = (task: StoredTask, caller: Caller) => etagFor(ETAG_KIND, task.id, task.version, viewName(task, caller));

export const taskPrefetch = (p: TaskParams) => [keys.project(p.project), taskKeys.task(p.project, p.task)];

export function storedTaskOf(ctx: OperationContext, p: TaskParams): TaskItem {
  boundProjectOf(ctx, p.project);
  const item = ctx.prefetched(taskKeys.task(p.project, p.task));
  if (!isAvailableTask(item)) throw notFound();
  return toTask(item);
}

/** Claims, releases and comments change the project's work: an archived project refuses them (403). */
export function changeableTask(ctx: OperationContext, p: TaskParams): TaskItem {
  requireEditable(boundProjectOf(ctx, p.project));
  return storedTaskOf(ctx, p);
}

export const detail = (task: StoredTask, caller: Caller) => ({ data: taskView(task, caller.permissions), etag: taskEtag(task, caller) });
