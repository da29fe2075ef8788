import { monotonicUlids } from './ids.js';
import * as z from 'zod';
import { forbidden } from '../errors.js';
import type { Permission } from './permissions.js';
import { multiLine, NOT_BLANK, once } from './validation.js';
import type { WorkflowConfig } from './workflow.js';

/**
 * Project tasks. The API reads, claims, releases and comments on them; the service creates them
 * (approval states of the control workflow, the review sweep, the operator CLI) and closes
 * approval tasks when the decision is made.
 */
export const TASK_KINDS = ['approval', 'review', 'manual'] as const;
export const TASK_STATUSES = ['open', 'closed'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const TITLE_MAX = 200;
export const COMMENT_MAX = 5000;

/** What a review task is about: a library item's working copy or a project register row, due on a date. */
export interface TaskSubject {
  kind: 'library-item' | 'register-row';
  definition_id: string;
  id: string;
  review_due: string;
}

export interface StoredTask {
  id: string;
  project_id: string;
  kind: (typeof TASK_KINDS)[number];
  title: string;
  status: TaskStatus;
  related_control_id: string | null;
  subject: TaskSubject | null;
  assignee_user_id: string | null;
  created_at: string;
  closed_at: string | null;
  version: number;
}

/** Monotonic, so that tasks opened within one millisecond still list in the order they were opened. */
const nextTaskId = monotonicUlids();

/** A task as the service opens it, however it comes to exist: open, unassigned unless said, version 1. */
export function openTask(
  t: Pick<StoredTask, 'project_id' | 'kind' | 'title'> & Partial<Pick<StoredTask, 'related_control_id' | 'subject' | 'assignee_user_id'>>,
  now: Date,
): StoredTask {
  return {
    id: nextTaskId(now.getTime()),
    project_id: t.project_id,
    kind: t.kind,
    title: t.title,
    status: 'open',
    related_control_id: t.related_control_id ?? null,
    subject: t.subject ?? null,
    assignee_user_id: t.assignee_user_id ?? null,
    created_at: now.toISOString(),
    closed_at: null,
    version: 1,
  };
}

export interface StoredTaskComment {
  id: string;
  task_id: string;
  project_id: string;
  author_user_id: string;
  comment: string;
  created_at: string;
}

const Subject = once(() =>
  z.object({
    kind: z.enum(['library-item', 'register-row']),
    definition_id: z.string(),
    id: z.string(),
    review_due: z.string(),
  }),
);

export const Task = once(() =>
  z
    .object({
      id: z.string(),
      project_id: z.string(),
      kind: z.enum(TASK_KINDS),
      title: z.string(),
      status: z.enum(TASK_STATUSES),
      related_control_id: z.string().nullable().optional().meta({ description: 'Omitted (and listed in redacted_fields) without view-controls.' }),
      subject: Subject()
        .nullable()
        .optional()
        .meta({ description: 'What a review task is about; omitted (and listed in redacted_fields) without the permission that reads it.' }),
      assignee_user_id: z.string().nullable(),
      created_at: z.string(),
      closed_at: z.string().nullable(),
      redacted_fields: z.array(z.string()),
    })
    .meta({ id: 'Task' }),
);
export type Task = z.infer<ReturnType<typeof Task>>;

export const TaskComment = once(() =>
  z.object({ id: z.string(), task_id: z.string(), author_user_id: z.string(), comment: z.string(), created_at: z.string() }).meta({ id: 'TaskComment' }),
);

export const CreateTaskComment = once(() =>
  z
    .strictObject({
      comment: multiLine().max(COMMENT_MAX).regex(NOT_BLANK, 'must not be blank'),
    })
    .meta({ id: 'CreateTaskComment', description: `The comment, 1 to ${COMMENT_MAX} characters, not blank.` }),
);

export const EmptyBody = once(() => z.strictObject({}).meta({ id: 'EmptyTaskAction', description: 'Claim and release take an empty JSON object.' }));

/** The permission that reads a review subject: the library needs view-controls, registers view-registers. */
const SUBJECT_PERMISSION: Record<TaskSubject['kind'], Permission> = { 'library-item': 'view-controls', 'register-row': 'view-registers' };

/** The fields this caller may not read: related controls without view-controls, subjects without their own permission. */
export function hiddenFields(task: Pick<StoredTask, 'subject'>, permissions: ReadonlySet<Permission>): string[] {
  return [
    ...(permissions.has('view-controls') ? [] : ['related_control_id']),
    ...(task.subject && !permissions.has(SUBJECT_PERMISSION[task.subject.kind]) ? ['subject'] : []),
  ];
}

export function taskView(task: StoredTask, permissions: ReadonlySet<Permission>): Task {
  const hidden = hiddenFields(task, permissions);
  return {
    id: task.id,
    project_id: task.project_id,
    kind: task.kind,
    title: task.title,
    status: task.status,
    ...(hidden.includes('related_control_id') ? {} : { related_control_id: task.related_control_id }),
    ...(hidden.includes('subject') ? {} : { subject: task.subject }),
    assignee_user_id: task.assignee_user_id,
    created_at: task.created_at,
    closed_at: task.closed_at,
    redacted_fields: hidden,
  };
}

export const commentView = (c: StoredTaskComment) => ({
  id: c.id,
  task_id: c.task_id,
  author_user_id: c.author_user_id,
  comment: c.comment,
  created_at: c.created_at,
});

/** Seed, Errors: 403 when the workflow state does not allow the action. */
const closedTask = () => forbidden('task_closed', 'The task is closed; it can no longer be claimed or released.');
const assignedToAnother = () =>
  forbidden('task_assigned_to_another', "The task is assigned to someone else; changing another's assignment needs manage-tasks.");

/**
 * Claim: the caller becomes the assignee. Claiming one's own claim changes nothing (undefined: no
 * write); taking over another's claim needs manage-tasks.
 */
export function claimed(task: StoredTask, userId: string, canOverride: boolean): StoredTask | undefined {
  if (task.status === 'closed') throw closedTask();
  if (task.assignee_user_id === userId) return undefined;
  if (task.assignee_user_id !== null && !canOverride) throw assignedToAnother();
  return { ...task, assignee_user_id: userId, version: task.version + 1 };
}

/**
 * Release: the assignment is cleared; another's claim needs manage-tasks. Releasing an unclaimed
 * task changes nothing (undefined: no write), as claiming one's own claim does.
 */
export function released(task: StoredTask, userId: string, canOverride: boolean): StoredTask | undefined {
  if (task.status === 'closed') throw closedTask();
  if (task.assignee_user_id === null) return undefined;
  if (task.assignee_user_id !== userId && !canOverride) throw assignedToAnother();
  return { ...task, assignee_user_id: null, version: task.version + 1 };
}

/**
 * The workflow states that wait for a decision: every transition out of them is a decision that
 * requires a comment (approve or reject). Derived from the configured workflow, which alone names
 * states; in the default these are approving_edit and approving_assessment.
 */
export function decisionStates(workflow: WorkflowConfig): Set<string> {
  return new Set(
    workflow.states
      .map((s) => s.id)
      .filter((id) => {
        const out = workflow.transitions.filter((t) => t.from === id);
        return out.length > 0 && out.every((t) => t.comment === 'required');
      }),
  );
}

/** An approval task's title names the state, not the control: its id is redacted from some readers. */
export const approvalTitle = (state: string) => `Decision needed: ${state.replaceAll('_', ' ')}`;

export const reviewTitle = (subject: TaskSubject) => `Review due ${subject.review_due}: ${subject.kind === 'library-item' ? 'library item' : 'register row'}`;
