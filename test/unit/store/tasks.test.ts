import { describe, expect, it } from 'vitest';
import { StoredItemInvalid } from '../../../lib/store/entity.js';
import { createCommentWrites, taskItem, toComment, toTask } from '../../../lib/store/tasks.js';
import { buildTask, buildTaskComment } from '../../support/factories.js';
import { firstPut } from '../../support/writes.js';
import { commentCount, taskCount, taskKeys } from '../../../lib/store/tasks.js';

const task = buildTask({
  id: '01JD3Q5Z8X6Y7W2V9T4S3R2P1N',
  project_id: 'P',
  kind: 'review',
  title: 'Review due 2026-03-01: register row',
  subject: { kind: 'register-row', definition_id: 'D', id: 'R', review_due: '2026-03-01' },
});

const comment = buildTaskComment({ task_id: task.id, project_id: 'P' });

const commentItem = () => firstPut(createCommentWrites(comment));

describe('stored tasks', () => {
  it('reads a task as written, its bookkeeping passing through', () => {
    expect(toTask({ ...taskItem(task), comments: 2 })).toEqual({ ...task, related_control_verified: true, comments: 2 });
  });

  it('refuses a task whose status is not one of its statuses, naming its key', () => {
    expect(() => toTask({ ...taskItem(task), status: 'done' })).toThrow(StoredItemInvalid);
    expect(() => toTask({ ...taskItem(task), status: 'done' })).toThrow(/PROJECT#P\|TASK#01JD3Q5Z8X6Y7W2V9T4S3R2P1N/);
  });

  it('refuses a review task whose subject lacks its due date', () => {
    expect(() => toTask({ ...taskItem(task), subject: { kind: 'register-row', definition_id: 'D', id: 'R' } })).toThrow(StoredItemInvalid);
  });

  it('reads a comment as written', () => {
    expect(toComment(commentItem())).toEqual(comment);
  });

  it('refuses a comment without its text, naming its key', () => {
    const { comment: _text, ...item } = commentItem();
    expect(() => toComment(item)).toThrow(/PROJECT#P\|TASKCOMMENT#/);
  });
});

describe('task counts', () => {
  const counters = taskKeys.counters('P');

  it('reads the list total of one status or of both, 0 before the first task', () => {
    const item = { ...counters, open: 3, closed: 2 };
    expect([taskCount(item, 'open'), taskCount(item), taskCount(undefined)]).toEqual([3, 5, 0]);
  });

  it('refuses a malformed status count, naming the key', () => {
    expect(() => taskCount({ ...counters, closed: '2' })).toThrow(StoredItemInvalid);
    expect(() => taskCount({ ...counters, closed: '2' })).toThrow('PROJECT#P|TASKCOUNTERS');
  });

  it("reads a task's comment count with the task, 0 before its first comment", () => {
    expect(commentCount(toTask({ ...taskItem(task), comments: 4 }))).toBe(4);
    expect(commentCount(toTask(taskItem(task)))).toBe(0);
  });

  it('refuses a task whose comment count is malformed, naming its key', () => {
    expect(() => toTask({ ...taskItem(task), comments: -1 })).toThrow(StoredItemInvalid);
    expect(() => toTask({ ...taskItem(task), comments: -1 })).toThrow('PROJECT#P|TASK#01JD3Q5Z8X6Y7W2V9T4S3R2P1N');
  });
});
