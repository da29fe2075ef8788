import * as z from 'zod';
import { type StoredTask, type StoredTaskComment, TASK_KINDS, TASK_STATUSES, type TaskStatus, type TaskSubject } from '../domain/tasks.js';
import { notFound } from '../errors.js';
import { and, attributeEquals, itemAbsent, itemPresent, versionIs } from './conditions.js';
import { counterSchema, countOf, readCounts } from './counters.js';
import { parseStored } from './entity.js';
import { keys, type Key } from './keys.js';
import { queryPage, type Item } from './read.js';
import type { WriteItem } from './transact.js';
import { staleOrMissing } from './versioned.js';
import { once } from '../domain/validation.js';

/**
 * Tasks and their comments live in their project's partition. The task counters item keeps the
 * exact totals of the task list (per status) and each task its comment count, both moved in the
 * writing transaction. Each task also carries a GSI1 key per status, so that a status filter
 * reads only the tasks of that status.
 *
 * A task's related control must be a control of its project. Every creation proves it in its own
 * transaction (a condition on the control, or the control's own write) and marks the task
 * `related_control_verified`; controls are never deleted, so the proof lasts. Reads and lists
 * treat a task without the mark as absent, at no extra read, and only marked tasks are counted.
 */
const partition = (projectId: string) => `PROJECT#${projectId}`;

export const taskKeys = {
  task: (projectId: string, taskId: string): Key => ({ PK: partition(projectId), SK: `TASK#${taskId}` }),
  comment: (projectId: string, taskId: string, commentId: string): Key => ({ PK: partition(projectId), SK: `TASKCOMMENT#${taskId}#${commentId}` }),
  counters: (projectId: string): Key => ({ PK: partition(projectId), SK: 'TASKCOUNTERS' }),
  /** One review task per subject and review date: the sweep's claim, a conditional put. */
  reviewClaim: (projectId: string, s: TaskSubject): Key => ({
    PK: partition(projectId),
    SK: `REVIEWTASK#${s.kind}#${s.definition_id}#${s.id}#${s.review_due}`,
  }),
} as const;

const statusPartition = (projectId: string, status: TaskStatus) => `TASKS#${projectId}#${status}`;

const subjectSchema = once(
  () =>
    z.looseObject({
      kind: z.enum(['library-item', 'register-row']),
      definition_id: z.string(),
      id: z.string(),
      review_due: z.string(),
    }) satisfies z.ZodType<TaskSubject>,
);

/** A task as the store reads it: beside the domain's fields, its comment count, absent until its first comment. */
export interface TaskItem extends StoredTask {
  comments?: number;
}

/** A task as stored under taskKeys.task, with its comment count; `related_control_verified` passes through. */
export const taskSchema = once(
  () =>
    z.looseObject({
      id: z.string(),
      project_id: z.string(),
      kind: z.enum(TASK_KINDS),
      title: z.string(),
      status: z.enum(TASK_STATUSES),
      related_control_id: z.string().nullable(),
      subject: subjectSchema().nullable(),
      assignee_user_id: z.string().nullable(),
      created_at: z.string(),
      closed_at: z.string().nullable(),
      version: z.number().int(),
      comments: z.number().int().nonnegative().optional(),
    }) satisfies z.ZodType<TaskItem>,
);

/** A comment as stored under taskKeys.comment. */
export const commentSchema = once(
  () =>
    z.looseObject({
      id: z.string(),
      task_id: z.string(),
      project_id: z.string(),
      author_user_id: z.string(),
      comment: z.string(),
      created_at: z.string(),
    }) satisfies z.ZodType<StoredTaskComment>,
);

export const toTask = (item: Item): TaskItem => parseStored(taskSchema(), item);
export const toComment = (item: Item): StoredTaskComment => parseStored(commentSchema(), item);

export const taskItem = (t: StoredTask) => ({
  ...taskKeys.task(t.project_id, t.id),
  entity: 'task',
  GSI1PK: statusPartition(t.project_id, t.status),
  GSI1SK: t.id,
  ...t,
  related_control_verified: true,
});

/** Whether a stored task item carries the creation's proof that its related control is of its project. */
export const isAvailableTask = (item: Item | undefined): item is Item => item?.related_control_verified === true;

/**
 * A new task and its count; with `claim`, only if that claim item is still free (else the mapper's
 * error); with a related control, only if it is a control of the task's project (else `onNoControl`).
 */
export function createTaskWrites(t: StoredTask, claim?: { key: Key; onTaken: () => Error }, onNoControl: () => Error = () => notFound()): WriteItem[] {
  return [
    ...(t.related_control_id
      ? [{ kind: 'check' as const, key: keys.control(t.project_id, t.related_control_id), condition: itemPresent(), onConditionFailed: onNoControl }]
      : []),
    ...(claim
      ? [
          {
            kind: 'put' as const,
            item: { ...claim.key, entity: 'review-task-claim', task_id: t.id },
            condition: itemAbsent(),
            onConditionFailed: claim.onTaken,
          },
        ]
      : []),
    newTaskWrite(t),
    taskCountWrite(t.project_id, { [t.status]: 1 }),
  ];
}

/**
 * The task alone; its count goes in the one counters write of the transaction (one operation per
 * item). The caller's transaction must prove the related control (the control's own write does).
 */
export const newTaskWrite = (t: StoredTask): WriteItem => ({ kind: 'put', item: taskItem(t), condition: itemAbsent() });

/** Moves the task totals by status, in one update of the counters item. */
export function taskCountWrite(projectId: string, delta: Partial<Record<TaskStatus, number>>): WriteItem {
  const moved = Object.entries(delta).filter(([, n]) => n !== 0);
  return {
    kind: 'update',
    key: taskKeys.counters(projectId),
    update: `ADD ${moved.map((_, i) => `#n${i} :d${i}`).join(', ')}`,
    names: Object.fromEntries(moved.map(([s], i) => [`#n${i}`, s])),
    values: Object.fromEntries(moved.map(([, n], i) => [`:d${i}`, n])),
  };
}

/**
 * Claim or release: the assignee alone, if the task is still at the version the caller's ETag
 * named. An update, not a put of the task as read, so that a comment counted meanwhile stays counted.
 */
export function assignTaskWrite(before: StoredTask, assignee: string | null): WriteItem {
  return {
    kind: 'update',
    key: taskKeys.task(before.project_id, before.id),
    update: 'SET #a = :a ADD #v :one',
    names: { '#a': 'assignee_user_id', '#v': 'version' },
    values: { ':a': assignee, ':one': 1 },
    condition: versionIs(before.version),
    onConditionFailed: staleOrMissing,
  };
}

/**
 * The decision out of an approval state closes its task without reading it: the control names
 * its open approval task, and only a decision closes one, so it is open when this lands. The
 * counts move in the caller's one counters write.
 */
export function closeTaskWrite(projectId: string, taskId: string, at: string, onClosed: () => Error): WriteItem {
  return {
    kind: 'update',
    key: taskKeys.task(projectId, taskId),
    update: 'SET #s = :closed, #c = :at, #g = :g ADD #v :one',
    names: { '#s': 'status', '#c': 'closed_at', '#g': 'GSI1PK', '#v': 'version' },
    values: { ':closed': 'closed', ':at': at, ':g': statusPartition(projectId, 'closed'), ':one': 1 },
    condition: and(itemPresent(), attributeEquals('status', 'open')),
    onConditionFailed: onClosed,
  };
}

/** A comment, counted on its task; the task must still be there when it lands. */
export function createCommentWrites(c: StoredTaskComment): WriteItem[] {
  return [
    { kind: 'put', item: { ...taskKeys.comment(c.project_id, c.task_id, c.id), entity: 'task-comment', ...c }, condition: itemAbsent() },
    {
      kind: 'update',
      key: taskKeys.task(c.project_id, c.task_id),
      update: 'ADD #n :one',
      names: { '#n': 'comments' },
      values: { ':one': 1 },
      condition: itemPresent(),
      onConditionFailed: () => notFound(),
    },
  ];
}

/** The task counters item (taskKeys.counters): the project's available tasks by status. */
const taskCountersSchema = once(() => counterSchema(TASK_STATUSES));

/** The list total: of one status, or of both. */
export function taskCount(counters: Item | undefined, status?: TaskStatus): number {
  const counts = readCounts(taskCountersSchema(), counters);
  const of = (s: TaskStatus) => countOf(counts, s);
  return status ? of(status) : of('open') + of('closed');
}

/** A task's comment count, from the task as read (toTask): 0 before its first comment. */
export const commentCount = (task: TaskItem): number => task.comments ?? 0;

/** A page of the project's available tasks, oldest first; of one status from its GSI1 partition. */
export async function tasksPage(projectId: string, page: { number: number; size: number }, status?: TaskStatus): Promise<StoredTask[]> {
  const available = { FilterExpression: '#verified = :yes', ExpressionAttributeNames: { '#verified': 'related_control_verified' } };
  const items = await queryPage(
    status
      ? {
          IndexName: 'GSI1',
          KeyConditionExpression: 'GSI1PK = :pk',
          ...available,
          ExpressionAttributeValues: { ':pk': statusPartition(projectId, status), ':yes': true },
        }
      : {
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
          // As strongly consistent as the counters item the total comes from; a GSI cannot be.
          ConsistentRead: true,
          ...available,
          ExpressionAttributeValues: { ':pk': partition(projectId), ':sk': 'TASK#', ':yes': true },
        },
    page,
  );
  return items.map(toTask);
}

export async function commentsPage(projectId: string, taskId: string, page: { number: number; size: number }): Promise<StoredTaskComment[]> {
  const items = await queryPage(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
      ExpressionAttributeValues: { ':pk': partition(projectId), ':sk': `TASKCOMMENT#${taskId}#` },
    },
    page,
  );
  return items.map(toComment);
}
