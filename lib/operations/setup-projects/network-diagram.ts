import * as z from 'zod';
import { acceptUpload, ownerShows } from '../../files/accept.js';
import { consumeSessionWrite } from '../../files/sessions.js';
import { etagFor, requireIfMatch } from '../kernel/etag.js';
import { keys } from '../../store/keys.js';
import type { FileOwner } from '../../store/file-owners.js';
import { replaceVersioned } from '../../store/versioned.js';
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
import { formFile, uploadBody, uploadDescription, uploadSessionOperation } from '../kernel/upload-form.js';
import { once } from '../../domain/validation.js';

/** Seed, Other lifecycles: a diagram is pending, failed or ready; the scan pipeline's statuses map onto these. */
const STATUS = { quarantine: 'pending', error: 'failed', ready: 'ready' } as const;

export const Artefacts = once(() =>
  z
    .object({
      assessment_scope: z.object({
        network_diagram: z.object({
          status: z.enum(['pending', 'failed', 'ready']).nullable().meta({ description: 'null while no diagram was uploaded.' }),
          processing: z.boolean(),
          error: z.string().nullable(),
        }),
      }),
      assessment_scope_artefacts: z.object({
        network_diagram: z
          .object({
            file_name: z.string(),
            content_type: z.string().nullable(),
            size: z.number().int(),
            width: z.number().int().nullable(),
            height: z.number().int().nullable(),
            uploaded_at: z.string(),
            url: z.string().nullable().meta({ description: 'The API url of the file, once it is ready.' }),
          })
          .nullable(),
      }),
    })
    .meta({ id: 'ProjectArtefacts' }),
);

function artefactsView(params: SetupProjectParams, item: FileOwner | undefined): z.infer<ReturnType<typeof Artefacts>> {
  const status = item ? STATUS[item.file_status] : null;
  return {
    assessment_scope: {
      network_diagram: { status, processing: status === 'pending', error: status === 'failed' ? (item?.error_code ?? 'scan_failed') : null },
    },
    assessment_scope_artefacts: {
      network_diagram: item
        ? {
            file_name: item.file_name,
            content_type: item.detected_type,
            size: item.size,
            width: item.width,
            height: item.height,
            uploaded_at: item.uploaded_at,
            url: status === 'ready' ? `${setupProjectUrl(params)}/artefacts/network-diagram/file` : null,
          }
        : null,
    },
  };
}

const ARTEFACTS_PATH = `${SETUP_PROJECT_PATH}/artefacts`;

export const getSetupProjectArtefacts = operation({
  id: 'getSetupProjectArtefacts',
  method: 'GET',
  path: ARTEFACTS_PATH,
  summary: 'Read the assessment scope artefacts (network diagram status and metadata, its API url when ready) with the setup ETag.',
  description:
    'After an upload the diagram is pending until its scan ends: ready, with the url of getSetupNetworkDiagramFile, or failed, with network_diagram.error naming why. The ETag is the setup ETag, which uploadNetworkDiagram names in If-Match.',
  credential: ['organisation'],
  permission: { organisation: [['manage-projects', 'view-projects']] },
  success: 200,
  params: SetupProjectParams,
  query: NoQuery,
  response: Artefacts,
  etag: true,
  sideEffects: [],
  prefetch: (p) => setupPrefetch(p),
  handle: async (ctx, { params }) => {
    const project = setupProjectOf(ctx, params);
    const diagram = diagramOf(ctx, project.id);
    return { data: artefactsView(params, diagram), etag: setupEtag(project, diagram) };
  },
});

export const uploadNetworkDiagram = operation({
  id: 'uploadNetworkDiagram',
  method: 'POST',
  path: `${ARTEFACTS_PATH}/network-diagram`,
  summary: 'Upload the network diagram (PNG, JPEG or WebP, at most 10 MiB) with If-Match the setup ETag: 202, queued for scanning.',
  description: `${uploadDescription('network-diagram')} Poll getSetupProjectArtefacts until the diagram is ready or failed.`,
  credential: ['organisation'],
  permission: { organisation: [['manage-projects', 'view-projects']] },
  success: 202,
  params: SetupProjectParams,
  query: NoQuery,
  body: uploadBody('network diagram'),
  response: Artefacts,
  etag: true,
  ifMatch: true,
  uses: { files: true },
  sideEffects: ['Stores the file in quarantine and queues its scan', 'Replaces the project network diagram', 'Writes an audit record'],
  prefetch: (p) => setupPrefetch(p),
  handle: async (ctx, { params, body }) => {
    const project = setupProjectOf(ctx, params);
    const current = diagramOf(ctx, project.id);
    requireIfMatch(ctx.ifMatch, etagFor(SETUP_ETAG_KIND, project.id, setupVersion(project, current)));
    requireEditable(project);
    const { file, session } = await formFile(ctx, body, 'network-diagram', { organisationId: params.organisation });
    const { upload, writes } = await acceptUpload({
      profile: 'network-diagram',
      owner: keys.projectDiagram(project.id),
      organisationId: params.organisation,
      projectId: project.id,
      userId: ctx.caller.userId,
      tokenId: ctx.caller.tokenId,
      authority: { scope: { kind: 'organisation', id: params.organisation }, permissions: ['manage-projects', 'view-projects'] },
      file,
      ...(session ? { session } : {}),
      now: ctx.now,
    });
    const version = current?.version ?? 0;
    const diagram = { ...ownerShows(upload, ctx.caller.userId, ctx.now), version: version + 1 };
    return {
      data: artefactsView(params, diagram),
      etag: setupEtag(project, diagram),
      location: `${setupProjectUrl(params)}/artefacts`,
      auditTarget: { ...params, upload: upload.id },
      writes: [
        ...writes,
        replaceVersioned({ ...keys.projectDiagram(project.id), entity: 'project-diagram', ...diagram }, version),
        unchanged(keys.project(project.id), project.version),
        ...(session ? [consumeSessionWrite(session.id)] : []),
      ],
    };
  },
});

export const createNetworkDiagramUploadSession = uploadSessionOperation({
  id: 'createNetworkDiagramUploadSession',
  group: 'setup-projects',
  path: `${ARTEFACTS_PATH}/network-diagram/upload-sessions`,
  params: SetupProjectParams,
  profile: 'network-diagram',
  what: 'network diagram',
  takenBy: 'uploadNetworkDiagram',
  refusals: 'An archived project is 403 project_archived.',
  permission: { organisation: [['manage-projects', 'view-projects']] },
  prefetch: (p) => setupPrefetch(p),
  target: (ctx, params) => {
    requireEditable(setupProjectOf(ctx, params));
    return { organisationId: params.organisation };
  },
});

export const setupArtefactOperations = [getSetupProjectArtefacts, uploadNetworkDiagram, createNetworkDiagramUploadSession];
