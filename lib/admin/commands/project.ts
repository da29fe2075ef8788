import { asProjectSummary, recountProject, summaryCount } from '../../store/controls.js';
import { keys } from '../../store/keys.js';
import { getOne } from '../../store/read.js';
import { required, UsageError, type Command } from '../options.js';

export const commands: Record<string, Command> = {
  'project recount': async (values, now) => {
    const id = required(values, 'project');
    const project = await getOne(keys.project(id));
    if (!project) throw new UsageError(`no project ${id}`);
    if (project.lifecycle_state !== 'active') throw new UsageError(`project ${id} is not populated yet`);
    await recountProject(id, now);
    return { project: id, controls: summaryCount(asProjectSummary(await getOne(keys.projectSummary(id))), 'controls') };
  },
};

export const refusals = [];
