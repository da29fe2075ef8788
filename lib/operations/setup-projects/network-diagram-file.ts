import * as z from 'zod';
import { readyFile } from '../../files/accept.js';
import { PROFILES } from '../../files/profiles.js';
import { notFound } from '../../errors.js';
import { keys } from '../../store/keys.js';
import { NoQuery } from '../kernel/common.js';
import type { OperationContext } from '../kernel/operation.js';
import { operation as projectsOperation } from '../projects/declare.js';
import { operation as setupProjectsOperation } from './declare.js';
import { ProjectParams, SETUP_PROJECT_PATH, SetupProjectParams, boundProjectOf, diagramOf, setupPrefetch, setupProjectOf } from '../projects/access.js';

/** The network diagram's downloads, for both credential types: served by the downloads function. */

const PROFILE = PROFILES['network-diagram'];

/** Only a ready diagram is served (seed: 404 while pending, failed or missing). */
async function diagramFile(ctx: OperationContext, projectId: string) {
  const file = await readyFile(diagramOf(ctx, projectId));
  if (!file) throw notFound('The network diagram is not ready.');
  return { data: undefined as never, file };
}

const fileOperation = {
  method: 'GET' as const,
  success: 200 as const,
  query: NoQuery,
  response: () => z.never(),
  produces: PROFILE.types,
  uses: { files: true },
  errors: [],
  sideEffects: [],
};

export const getSetupNetworkDiagramFile = setupProjectsOperation({
  ...fileOperation,
  id: 'getSetupNetworkDiagramFile',
  path: `${SETUP_PROJECT_PATH}/artefacts/network-diagram/file`,
  summary: 'The ready network diagram (private, no-store); 404 while it is pending, failed or missing.',
  description: 'Streams the scanned, ready diagram as PNG, JPEG or WebP, private and never cached (Cache-Control private, no-store).',
  credential: ['organisation'],
  permission: { organisation: [['view-projects']] },
  params: SetupProjectParams,
  prefetch: (p) => setupPrefetch(p),
  handle: async (ctx, { params }) => diagramFile(ctx, setupProjectOf(ctx, params).id),
});

export const getProjectNetworkDiagramFile = projectsOperation({
  ...fileOperation,
  id: 'getProjectNetworkDiagramFile',
  path: '/projects/{project}/artefacts/network-diagram/file',
  summary: 'The ready network diagram (private, no-store); 404 while it is pending, failed or missing.',
  description: 'Streams the scanned, ready diagram of the bound project as PNG, JPEG or WebP, private and never cached (Cache-Control private, no-store).',
  credential: ['project'],
  permission: { project: [['view-projects']] },
  params: ProjectParams,
  prefetch: ({ project }) => [keys.project(project), keys.projectDiagram(project)],
  handle: async (ctx, { params }) => diagramFile(ctx, boundProjectOf(ctx, params.project).id),
});
