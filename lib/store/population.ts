import * as z from 'zod';
import type { StoredProject } from '../domain/projects.js';
import { once } from '../domain/validation.js';
import { parseEach, parseFound, parseStored, sweptFields } from './entity.js';
import { gsi1, keys } from './keys.js';
import { projectItem } from './projects.js';
import { type Item, queryAll } from './read.js';
import type { WriteItem } from './transact.js';
import { replaceVersioned } from './versioned.js';

/** How many earlier runs the population record keeps for the status resource. */
const HISTORY = 20;

const RUN_STATUSES = ['running', 'failed', 'completed'] as const;

/** An earlier run as the record keeps it, and as the population resource shows it (previous_runs). */
export const runSummarySchema = once(() =>
  z.object({
    run_id: z.string(),
    status: z.enum(RUN_STATUSES),
    started_at: z.string(),
    finished_at: z.string().nullable(),
    error_code: z.string().nullable(),
  }),
);

/** What a run has read and written so far, as the record keeps it and the population resource shows it. */
export const runProgressSchema = once(() => z.object({ planned: z.number().int(), existing: z.number().int(), created: z.number().int() }));

/**
 * A project's population record: its current run, with the runs before it and the sweep's lease
 * and requeue bookkeeping; what a run had not written yet reads as null.
 */
export const populationRunSchema = once(() =>
  z.looseObject({
    run_id: z.string(),
    status: z.enum(RUN_STATUSES),
    started_at: z.string(),
    started_by: z.string(),
    token_id: z.string(),
    finished_at: z.string().nullable().default(null),
    error_code: z.string().nullable().default(null),
    progress: runProgressSchema().nullable().default(null),
    previous_runs: z.array(runSummarySchema()).default([]),
    version: z.number().int().optional(),
    ...sweptFields(),
  }),
);
export type PopulationRun = z.output<ReturnType<typeof populationRunSchema>>;

export const asPopulationRun = (item: Item | undefined): PopulationRun | undefined => parseFound(populationRunSchema(), item);

/** The running runs (the sweep's), each with its project: oldest first. */
export async function runningPopulations(): Promise<{ projectId: string; run: PopulationRun }[]> {
  const items = await queryAll({ IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :pk', ExpressionAttributeValues: { ':pk': gsi1.runningPopulations } });
  return parseEach('population run', items, (item) => ({ projectId: item.PK.slice(item.PK.indexOf('#') + 1), run: parseStored(populationRunSchema(), item) }));
}

/**
 * A new population run: the project moves to Initialising with the run as its current one (its
 * version, and so the setup ETag, moves too), and the population record starts the run, keeping
 * the runs before it. Both conditional on the versions read.
 */
export function startRunWrites(project: StoredProject, current: PopulationRun | undefined, r: { runId: string; userId: string; tokenId: string; now: Date }) {
  const at = r.now.toISOString();
  const next: StoredProject = {
    ...project,
    lifecycle_state: 'initialising',
    population_run_id: r.runId,
    population_status: 'running',
    updated_at: at,
    version: project.version + 1,
  };
  const previous = current
    ? [
        {
          run_id: current.run_id,
          status: current.status,
          started_at: current.started_at,
          finished_at: current.finished_at,
          error_code: current.error_code,
        },
        ...current.previous_runs,
      ]
    : [];
  const run = {
    ...keys.projectPopulation(project.id),
    entity: 'population-run',
    run_id: r.runId,
    status: 'running' as const,
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
  const writes: WriteItem[] = [replaceVersioned(projectItem(next), project.version), replaceVersioned(run, current?.version ?? 0)];
  return { next, run, writes };
}
