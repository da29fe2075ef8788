import * as z from 'zod';
import { monotonicUlids } from '../../domain/ids.js';
import { commentView, CreateTaskComment, TaskComment, type StoredTaskComment } from '../../domain/tasks.js';
import { commentCount, commentsPage, createCommentWrites } from '../../store/tasks.js';
import { NoQuery, PageQuery } from '../kernel/common.js';
import { operation } from './declare.js';
import { projectStillEditable } from '../projects/access.js';
import { changeableTask, storedTaskOf, TaskParams, TASKS_PATH, taskPrefetch } from './access.js';

const COMMENTS = `${TASKS_PATH}/{task}/comments`;

/** Monotonic, so that comments made within one millisecond still list oldest first. */
const nextCommentId = monotonicUlids();

export const listTaskComments = operation({
  id: 'listTaskComments',
  method: 'GET',
  path: COMMENTS,
  summary: 'List the comments of a task, oldest first.',
  description: 'Comments cannot be edited or deleted, so the list only grows; closed tasks keep and still take comments.',
  credential: ['project'],
  permission: { project: [['view-tasks']] },
  success: 200,
  params: TaskParams,
  query: PageQuery,
  response: () => z.array(TaskComment()),
  paginated: true,
  sideEffects: [],
  prefetch: taskPrefetch,
  handle: async (ctx, { params }) => {
    const task = storedTaskOf(ctx, params);
    const page = await commentsPage(task.project_id, task.id, ctx.page);
    return { data: page.map(commentView), total: commentCount(task) };
  },
});

export const createTaskComment = operation({
  id: 'createTaskComment',
  method: 'POST',
  path: COMMENTS,
  summary: 'Comment on a task (body {comment}, at most 5000 characters; Idempotency-Key).',
  description: 'Closed tasks still take comments. Comments cannot be edited or deleted.',
  credential: ['project'],
  permission: { project: [['view-tasks']] },
  success: 201,
  params: TaskParams,
  query: NoQuery,
  body: { schema: CreateTaskComment, mediaType: 'application/json' },
  response: TaskComment,
  idempotencyKey: true,
  sideEffects: ['Adds a comment to the task', 'Writes an audit record'],
  prefetch: taskPrefetch,
  // A replayed receipt answers only while the project can still take comments, as the first request could.
  recheck: (ctx, { params }) => {
    changeableTask(ctx, params);
  },
  handle: async (ctx, { params, body }) => {
    const task = changeableTask(ctx, params);
    const comment: StoredTaskComment = {
      id: nextCommentId(ctx.now.getTime()),
      task_id: task.id,
      project_id: task.project_id,
      author_user_id: ctx.caller.userId,
      comment: body.comment,
      created_at: ctx.now.toISOString(),
    };
    return {
      data: commentView(comment),
      auditTarget: { project: params.project, task: task.id, comment: comment.id },
      writes: [...createCommentWrites(comment), projectStillEditable(params.project)],
    };
  },
});

export const taskCommentOperations = [listTaskComments, createTaskComment];
