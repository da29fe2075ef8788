import { required, type Command } from '../options.js';
import { createManualTask, TaskRefusedError } from '../task-create.js';

export const commands: Record<string, Command> = {
  'task create': async (values, now) => {
    const task = await createManualTask(
      { projectId: required(values, 'project'), title: required(values, 'title'), controlId: values.control, assigneeId: values.assignee },
      now,
    );
    return { id: task.id, project_id: task.project_id, related_control_id: task.related_control_id, assignee_user_id: task.assignee_user_id };
  },
};

export const refusals = [TaskRefusedError];
