import { describe, expect, it } from 'vitest';
import type { Permission } from '../../../lib/domain/permissions.js';
import { claimed, CreateTaskComment, decisionStates, released, taskView, type StoredTask } from '../../../lib/domain/tasks.js';
import { DEFAULT_WORKFLOW } from '../../../lib/domain/workflow.js';
import { buildTask } from '../../support/factories.js';

const ME = 'user-me';
const OTHER = 'user-other';

/** The task the tests act on: a manual one related to a control, seen two edits after it was opened. */
const task = (fields: Partial<StoredTask> = {}) => buildTask({ related_control_id: 'control-1', version: 3, ...fields });
const closed = { status: 'closed' as const, closed_at: '2026-11-23T01:00:00.000Z' };
const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return `${(error as { status: number }).status} ${(error as { code: string }).code}`;
  }
  return 'no error';
};

describe('claimed', () => {
  it('assigns an unclaimed task to the caller and moves the version', () => {
    expect(claimed(task(), ME, false)).toMatchObject({ assignee_user_id: ME, version: 4 });
  });

  it('changes nothing when the caller already holds the claim', () => {
    expect(claimed(task({ assignee_user_id: ME }), ME, false)).toBeUndefined();
  });

  it("refuses another's claim without the override", () => {
    expect(codeOf(() => claimed(task({ assignee_user_id: OTHER }), ME, false))).toBe('403 task_assigned_to_another');
  });

  it("takes over another's claim with the override", () => {
    expect(claimed(task({ assignee_user_id: OTHER }), ME, true)?.assignee_user_id).toBe(ME);
  });

  it('refuses a closed task, even with the override', () => {
    expect(codeOf(() => claimed(task(closed), ME, true))).toBe('403 task_closed');
  });
});

describe('released', () => {
  it("clears the caller's claim and moves the version", () => {
    expect(released(task({ assignee_user_id: ME }), ME, false)).toMatchObject({ assignee_user_id: null, version: 4 });
  });

  it('changes nothing when the task is unclaimed', () => {
    expect(released(task(), ME, true)).toBeUndefined();
  });

  it("refuses another's claim without the override", () => {
    expect(codeOf(() => released(task({ assignee_user_id: OTHER }), ME, false))).toBe('403 task_assigned_to_another');
  });

  it("releases another's claim with the override", () => {
    expect(released(task({ assignee_user_id: OTHER }), ME, true)?.assignee_user_id).toBeNull();
  });

  it('refuses a closed task', () => {
    expect(codeOf(() => released(task({ ...closed, assignee_user_id: ME }), ME, false))).toBe('403 task_closed');
  });
});

describe('taskView', () => {
  const perms = (...p: Permission[]) => new Set<Permission>(p);

  it('shows the related control with view-controls', () => {
    expect(taskView(task(), perms('view-tasks', 'view-controls'))).toMatchObject({ related_control_id: 'control-1', redacted_fields: [] });
  });

  it('omits the related control without view-controls, even when there is none', () => {
    const view = taskView(task({ related_control_id: null }), perms('view-tasks'));
    expect(view).not.toHaveProperty('related_control_id');
    expect(view.redacted_fields).toEqual(['related_control_id']);
  });

  it('omits a register subject without view-registers', () => {
    const subject = { kind: 'register-row' as const, definition_id: 'd', id: 'r', review_due: '2026-11-01' };
    const view = taskView(task({ kind: 'review', related_control_id: null, subject }), perms('view-tasks', 'view-controls'));
    expect(view).not.toHaveProperty('subject');
    expect(view.redacted_fields).toEqual(['subject']);
  });
});

describe('decisionStates', () => {
  it('are the approval states of the default workflow', () => {
    expect([...decisionStates(DEFAULT_WORKFLOW)].sort()).toEqual(['approving_assessment', 'approving_edit']);
  });
});

describe('CreateTaskComment', () => {
  it('takes 5000 characters and refuses 5001', () => {
    expect(CreateTaskComment().safeParse({ comment: 'x'.repeat(5000) }).success).toBe(true);
    expect(CreateTaskComment().safeParse({ comment: 'x'.repeat(5001) }).success).toBe(false);
  });

  it('refuses any other property', () => {
    expect(CreateTaskComment().safeParse({ comment: 'ok', author_user_id: 'someone' }).success).toBe(false);
  });
});
