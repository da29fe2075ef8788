import { ProjectHealth } from '../../domain/health.js';
import { keys } from '../../store/keys.js';
import { NoQuery } from '../kernel/common.js';
import { operation } from './declare.js';
import { healthKeys, healthOf } from '../projects/health.js';
import { SETUP_PROJECT_PATH, SetupProjectParams, setupProjectOf } from '../projects/access.js';

export const getSetupProjectHealth = operation({
  id: 'getSetupProjectHealth',
  method: 'GET',
  path: `${SETUP_PROJECT_PATH}/health`,
  summary: 'Project health: population, recalculation and recommendation freshness, and warnings (no control-level health for organisation credentials).',
  description:
    'population follows the current run (see getPopulation); recalculation is pending while an applicability recalculation of the organisation, system or project waits to run, stopped when one stopped because its requester lost authority, and idle otherwise. Warnings: population_failed, recalculation_stopped and network_diagram_failed; applicability counts and their warnings are not shown to organisation credentials.',
  credential: ['organisation'],
  permission: { organisation: [['view-projects']] },
  success: 200,
  params: SetupProjectParams,
  query: NoQuery,
  response: ProjectHealth,
  sideEffects: [],
  prefetch: (p) => [...healthKeys(p.project), keys.organisationRecalculation(p.organisation), keys.applicabilityRecalculation(p.system)],
  handle: async (ctx, { params }) => {
    const project = setupProjectOf(ctx, params);
    return {
      data: healthOf(ctx, project, [
        ctx.prefetched(keys.organisationRecalculation(params.organisation)),
        ctx.prefetched(keys.applicabilityRecalculation(params.system)),
      ]),
    };
  },
});

export const setupHealthOperations = [getSetupProjectHealth];
