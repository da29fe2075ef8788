import * as z from 'zod';
import { newUlid } from '../../domain/ids.js';
import type { StoredProject } from '../../domain/projects.js';
import { etagFor, requireIfMatch } from '../kernel/etag.js';
import { conflict } from '../../errors.js';
import { keys } from '../../store/keys.js';
import { asPopulationRun, runProgressSchema, runSummarySchema, startRunWrites, type PopulationRun } from '../../store/population.js';
import { NoQuery } from '../kernel/common.js';
import { operation } from './declare.js';
import {
  SETUP_ETAG_KIND,
  SETUP_PROJECT_PATH,
  SetupProjectParams,
  diagramOf,
  requireEditable,
  setupEtag,
  setupPrefetch,
  setupProjectOf,
  setupProjectUrl,
  setupVersion,
  unchanged,
} from '../projects/access.js';
import { once } from '../../domain/validation.js';

export const Population = once(() =>
  z
    .object({
      run_id: z.string().nullable(),
      status: z.enum(['not_started', 'running', 'failed', 'completed']),
      started_at: z.string().nullable(),
      finished_at: z.string().nullable(),
      error_code: z.string().nullable().meta({
        description:
          'Why the run failed: population_failed, authorisation_lost, or population_abandoned (its worker stopped and the run, queued again three times, did not finish).',
      }),
      progress: runProgressSchema().nullable(),
      recovery_available: z.boolean().meta({ description: 'True when POST with the current setup ETag starts a recovery run.' }),
      previous_runs: z.array(runSummarySchema()),
    })
    .meta({ id: 'Population' }),
);
type Population = z.infer<ReturnType<typeof Population>>;

function populationView(project: StoredProject, run: PopulationRun | undefined): Population {
  const status = project.population_status;
  return {
    run_id: project.population_run_id,
    status,
    started_at: run?.started_at ?? null,
    finished_at: run?.finished_at ?? null,
    error_code: status === 'failed' ? (run?.error_code ?? 'population_failed') : null,
    progress: run?.progress ?? null,
    recovery_available: status === 'failed' && project.lifecycle_state === 'initialising' && !project.archived,
    previous_runs: run?.previous_runs ?? [],
  };
}

const PATH = `${SETUP_PROJECT_PATH}/population`;
const prefetch = (p: SetupProjectParams) => setupPrefetch(p);

export const getPopulation = operation({
  id: 'getPopulation',
  method: 'GET',
  path: PATH,
  summary: 'Poll population: the current run, its status and progress. A recovery run needs the setup ETag of the project or its artefacts.',
  description:
    'After startPopulation (202) poll this until status leaves running: completed (the project becomes active, its controls, recommendations and documents made) or failed with error_code. progress counts planned, existing and created records of the run. recovery_available is true when a failed run of a project still initialising and not archived may be run again; previous_runs keeps the earlier runs.',
  credential: ['organisation'],
  permission: { organisation: [['manage-projects', 'view-projects']] },
  success: 200,
  params: SetupProjectParams,
  query: NoQuery,
  response: Population,
  sideEffects: [],
  prefetch,
  handle: async (ctx, { params }) => {
    const project = setupProjectOf(ctx, params);
    return { data: populationView(project, asPopulationRun(ctx.prefetched(keys.projectPopulation(project.id)))) };
  },
});

export const startPopulation = operation({
  id: 'startPopulation',
  method: 'POST',
  path: PATH,
  summary: 'Start population (202 with run_id), or a recovery run of an Initialising project whose population failed.',
  description:
    'Send an empty JSON object with If-Match the current setup ETag. A recovery run keeps existing controls, recommendations and documents and fills what is missing. An active or completed run cannot be restarted (409); a run that changed since the ETag was read gives 412. Poll getPopulation until the run is completed or failed.',
  credential: ['organisation'],
  permission: { organisation: [['manage-projects', 'view-projects']] },
  success: 202,
  params: SetupProjectParams,
  query: NoQuery,
  body: { schema: () => z.strictObject({}).meta({ id: 'StartPopulation' }), mediaType: 'application/json' },
  response: Population,
  etag: true,
  ifMatch: true,
  errors: [409],
  sideEffects: ['Starts a population run and queues the population job', 'Moves the project to Initialising', 'Writes an audit record'],
  prefetch,
  handle: async (ctx, { params }) => {
    const project = setupProjectOf(ctx, params);
    const diagram = diagramOf(ctx, project.id);
    requireIfMatch(ctx.ifMatch, etagFor(SETUP_ETAG_KIND, project.id, setupVersion(project, diagram)));
    requireEditable(project);
    const current = asPopulationRun(ctx.prefetched(keys.projectPopulation(project.id)));
    const status = project.population_status;
    if (status === 'running') throw conflict('population_active', 'A population run is active; poll it until it finishes.');
    if (status === 'completed') throw conflict('population_completed', 'The project is populated; a completed run cannot be restarted.');
    const { next, run, writes } = startRunWrites(project, current, {
      runId: newUlid(ctx.now.getTime()),
      userId: ctx.caller.userId,
      tokenId: ctx.caller.tokenId,
      now: ctx.now,
    });
    const runId = run.run_id;
    return {
      data: populationView(next, run),
      etag: setupEtag(next, diagram),
      location: `${setupProjectUrl(params)}/population`,
      auditTarget: { ...params, run: runId },
      writes: [...writes, unchanged(keys.projectDiagram(project.id), diagram?.version ?? 0)],
    };
  },
});

export const populationOperations = [getPopulation, startPopulation];
