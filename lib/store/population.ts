import type { StoredProject } from '../domain/projects.js';
import { gsi1, keys } from './keys.js';
import { projectItem } from './projects.js';
import type { Item } from './read.js';
import type { WriteItem } from './transact.js';
import { replaceVersioned } from './versioned.js';

/** How many earlier runs the population record keeps for the status resource. */
const HISTORY = 20;

/**
 * A new population run: the project moves to Initialising with the run as its current one (its
 * version, and so the setup ETag, moves too), and the population record starts the run, keeping
 * the runs before it. Both conditional on the versions read.
 */
export function startRunWrites(project: StoredProject, current: Item | undefined, r: { runId: string; userId: string; tokenId: string; now: Date }) {
  const at = r.now.toISOString();
  const next: StoredProject = {
    ...project,
    lifecycle_state: 'initialising',
    population_run_id: r.runId,
    population_status: 'running',
    updated_at: at,
    version: project.version + 1,
  };
  const previous = current?.run_id
    ? [
        {
          run_id: current.run_id,
          status: current.status,
          started_at: current.started_at,
          finished_at: current.finished_at ?? null,
          error_code: current.error_code ?? null,
        },
        ...((current.previous_runs as unknown[]) ?? []),
      ]
    : [];
  const run = {
    ...keys.projectPopulation(project.id),
    entity: 'population-run',
    run_id: r.runId,
    status: 'running',
    started_at: at,
    started_by: r.userId,
    token_id: r.tokenId,
    finished_at: null,
    error_code: null,
    progress: null,
    previous_runs: previous.slice(0, HISTORY),
    GSI1PK: gsi1.runningPopulations,
    GSI1SK: `${at}#${project.id}`,
  };
  const writes: WriteItem[] = [replaceVersioned(projectItem(next), project.version), replaceVersioned(run, Number(current?.version ?? 0))];
  return { next, run, writes };
}
