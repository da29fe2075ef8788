import { controlWorkflow } from '../../config.js';
import type { StoredControl } from '../../domain/controls.js';
import { approvalTitle, decisionStates, openTask } from '../../domain/tasks.js';
import type { Transition } from '../../domain/workflow.js';
import { conflict } from '../../errors.js';
import { closeTaskWrite, newTaskWrite, taskCountWrite } from '../../store/tasks.js';
import type { WriteItem } from '../../store/transact.js';

/**
 * Approval tasks follow the control workflow in the transition's own transaction: entering a
 * decision state opens one related to the control, and the decision out of it (approve or reject)
 * closes it. The control keeps the open task's id, so that the close names it without a read.
 */
export function approvalTaskChange(control: StoredControl, transition: Transition, now: Date): { approvalTaskId: string | null; writes: WriteItem[] } {
  const decisions = decisionStates(controlWorkflow());
  const at = now.toISOString();
  const writes: WriteItem[] = [];
  const delta = { open: 0, closed: 0 };
  let approvalTaskId = control.approval_task_id ?? null;
  if (decisions.has(transition.from) && approvalTaskId) {
    writes.push(closeTaskWrite(control.project_id, approvalTaskId, at, approvalTaskGone));
    delta.open--;
    delta.closed++;
    approvalTaskId = null;
  }
  if (decisions.has(transition.to)) {
    const task = openTask({ project_id: control.project_id, kind: 'approval', title: approvalTitle(transition.to), related_control_id: control.id }, now);
    writes.push(newTaskWrite(task));
    delta.open++;
    approvalTaskId = task.id;
  }
  if (delta.open !== 0 || delta.closed !== 0) writes.push(taskCountWrite(control.project_id, delta));
  return { approvalTaskId, writes };
}

/** Only the decision closes an approval task, so this names a state the service never writes. */
const approvalTaskGone = () => conflict('approval_task_not_open', "The control's approval task is no longer open; read the control and retry.");
