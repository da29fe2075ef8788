import * as z from 'zod';
import { once } from '../../domain/validation.js';
import { newUlid } from '../../domain/ids.js';
import { publicUrl, settings } from '../../config.js';
import {
  CATALOGUE,
  CatalogueGenerationRequest,
  DependencyEvaluation,
  DOCUMENT_KEYS,
  GenerationRequest,
  resolveOptions,
  type DocumentKey,
  type StoredDocument,
} from '../../domain/documents.js';
import type { StoredProject } from '../../domain/projects.js';
import { conflict } from '../../errors.js';
import { documentsCollection, startGenerationWrites, toDocument } from '../../store/documents.js';
import { keys } from '../../store/keys.js';
import { NoQuery } from '../kernel/common.js';
import {
  dependenciesOf,
  DocumentParams,
  documentOf,
  documentPrefetch,
  DOCUMENTS_PATH,
  documentUrl,
  DocumentView,
  documentView,
  GenerationView,
  generationView,
} from './access.js';
import type { OperationContext } from '../kernel/operation.js';
import { operation } from './declare.js';
import { boundProjectOf, ProjectParams, projectStillEditable, requireEditable } from '../projects/access.js';

const CatalogueEntry = once(() =>
  z
    .object({
      document_key: z.enum(DOCUMENT_KEYS),
      title: z.string(),
      description: z.string(),
      format: z.enum(['pdf', 'xlsx', 'json']),
      media_type: z.string(),
      document_id: z.string().nullable().meta({ description: 'The output row of this entry, once a generation was requested; null before.' }),
      dependencies: DependencyEvaluation(),
    })
    .meta({ id: 'DocumentCatalogueEntry' }),
);

const DocumentList = once(() =>
  z
    .object({ catalogue: z.array(CatalogueEntry()), documents: z.array(DocumentView()) })
    .meta({ id: 'DocumentList', description: 'Every template of the catalogue with its dependency evaluation, and the output rows the project has.' }),
);

const GenerationStatus = once(() =>
  GenerationView().extend({ document_id: z.string(), document_key: z.string(), dependencies: DependencyEvaluation() }).meta({
    id: 'DocumentGenerationStatus',
  }),
);

const documentRows = (ctx: OperationContext, projectId: string) => ctx.prefetchedCollection(documentsCollection(projectId)).map(toDocument);

const READ = {
  credential: ['project' as const],
  permission: { project: [['view-docsuite' as const]] },
  success: 200 as const,
  query: NoQuery,
  errors: [],
  sideEffects: [],
};

export const listDocuments = operation({
  ...READ,
  id: 'listDocuments',
  method: 'GET',
  path: DOCUMENTS_PATH,
  summary: "The document catalogue with each template's dependency evaluation, and the project's output rows.",
  description:
    'Each catalogue entry names its output row (document_id, null before the first generation) and evaluates its dependencies: required ones that are unmet block generation (409 dependencies_incomplete), advisory ones only thin the document. Output rows show their latest generation; storage paths and raw errors are never returned.',
  params: ProjectParams,
  response: DocumentList,
  prefetch: documentPrefetch,
  prefetchCollections: ({ project }) => [documentsCollection(project)],
  handle: async (ctx, { params }) => {
    const project = boundProjectOf(ctx, params.project);
    const rows = documentRows(ctx, project.id);
    const rowOf = new Map(rows.map((d) => [d.document_key, d.id]));
    return {
      data: {
        catalogue: DOCUMENT_KEYS.map((key) => {
          const t = CATALOGUE[key];
          return {
            document_key: key,
            title: t.title,
            description: t.description,
            format: t.format,
            media_type: t.media_type,
            document_id: rowOf.get(key) ?? null,
            dependencies: dependenciesOf(ctx, project, key),
          };
        }),
        documents: rows.map((d) => documentView(ctx, project, d)),
      },
    };
  },
});

const documentKeys = (p: DocumentParams, claims: Parameters<typeof documentPrefetch>[1]) => [
  ...documentPrefetch(p, claims),
  keys.document(p.project, p.document),
];

export const getDocument = operation({
  ...READ,
  id: 'getDocument',
  method: 'GET',
  path: `${DOCUMENTS_PATH}/{document}`,
  summary: 'An output row: safe status, the latest generation, the downloadable output and the dependency evaluation.',
  description: 'Storage paths and raw errors are never returned.',
  params: DocumentParams,
  response: DocumentView,
  prefetch: documentKeys,
  handle: async (ctx, { params }) => {
    const { project, document } = documentOf(ctx, params);
    return { data: documentView(ctx, project, document) };
  },
});

export const getDocumentGeneration = operation({
  ...READ,
  id: 'getDocumentGeneration',
  method: 'GET',
  path: `${DOCUMENTS_PATH}/{document}/generation`,
  summary: 'Poll the latest generation of an output row: its status and the dependency evaluation.',
  description:
    "After startDocumentGeneration or startCatalogueGeneration (202) poll this until status leaves queued and running: completed (the output row's file is downloadable) or failed with error_code generation_failed, authorisation_lost, dependencies_incomplete (the worker evaluates dependencies again before it renders) or generation_abandoned (a worker that stopped without finishing). The dependency evaluation is the current one.",
  params: DocumentParams,
  response: GenerationStatus,
  prefetch: documentKeys,
  handle: async (ctx, { params }) => {
    const { project, document } = documentOf(ctx, params);
    const view = documentView(ctx, project, document);
    return { data: { ...view.generation, document_id: document.id, document_key: document.document_key, dependencies: view.dependencies } };
  },
});

/**
 * A generation starts with the lease and the row in one transaction; the row's queued generation
 * is what queues its job, from the table's stream (lib/jobs/dispatch.ts).
 */
async function startGeneration(ctx: OperationContext, project: StoredProject, key: DocumentKey, existing: StoredDocument | undefined, body: GenerationRequest) {
  requireEditable(project);
  const dependencies = dependenciesOf(ctx, project, key);
  if (!dependencies.complete) throw conflict('dependencies_incomplete', 'The document depends on records that are not complete yet.', { dependencies });
  const options = resolveOptions(body);
  const at = ctx.now.toISOString();
  const user = ctx.prefetched(keys.user(ctx.caller.userId));
  const name = String(user?.name ?? '');
  const final = options.output === 'final';
  const documentId = existing?.id ?? newUlid(ctx.now.getTime());
  const next: StoredDocument = {
    id: documentId,
    project_id: project.id,
    document_key: key,
    created_at: existing?.created_at ?? at,
    created_by: existing?.created_by ?? ctx.caller.userId,
    output: existing?.output ?? null,
    version: (existing?.version ?? 0) + 1,
    generation: {
      id: newUlid(ctx.now.getTime()),
      status: 'queued',
      options,
      requested_by: ctx.caller.userId,
      requested_by_name: name,
      token_id: ctx.caller.tokenId,
      requested_at: at,
      approved_by: final ? ctx.caller.userId : null,
      approved_by_name: final ? name : null,
      approved_at: final ? at : null,
      started_at: null,
      finished_at: null,
      error_code: null,
      public_url: publicUrl(),
    },
  };
  return {
    data: { ...generationView(next.generation), document_id: documentId, document_key: key, dependencies },
    location: `${documentUrl(project.id, documentId)}/generation`,
    writes: [
      ...startGenerationWrites(next, existing ? existing.version : null, ctx.now, settings().GENERATION_LEASE_SECONDS),
      projectStillEditable(project.id),
    ],
    auditTarget: { project: project.id, document: documentId, generation: next.generation.id },
    auditDetails: { document_key: key, output: options.output },
  };
}

const GENERATE = {
  credential: ['project' as const],
  permission: { project: [['generate-docsuite' as const, 'view-docsuite' as const]] },
  success: 202 as const,
  query: NoQuery,
  response: GenerationStatus,
  errors: [409],
  sideEffects: ['Takes the project generation lease', 'Queues the generation job', 'Writes an audit record'],
};

export const startDocumentGeneration = operation({
  ...GENERATE,
  id: 'startDocumentGeneration',
  method: 'POST',
  path: `${DOCUMENTS_PATH}/{document}/generation`,
  summary: 'Generate an output row again (202 with a Location to poll): a draft by default, final output with approval_confirmed.',
  description:
    'One generation at a time per project: while another holds the project lease this is 409 generation_in_progress. Incomplete dependencies are 409 dependencies_incomplete with the evaluation; an archived project is 403. Poll getDocumentGeneration (the Location) until the generation is completed or failed.',
  params: DocumentParams,
  body: { schema: GenerationRequest, mediaType: 'application/json' },
  // The requester's user record: its name goes on the generation, and on final output as the approver's.
  prefetch: (p, claims) => [...documentKeys(p, claims), keys.user(claims.userId)],
  handle: async (ctx, { params, body }) => {
    const { project, document } = documentOf(ctx, params);
    return startGeneration(ctx, project, document.document_key, document, body);
  },
});

export const startCatalogueGeneration = operation({
  ...GENERATE,
  id: 'startCatalogueGeneration',
  method: 'POST',
  path: `${DOCUMENTS_PATH}/generation`,
  summary: 'Generate a catalogue entry that has no output row yet (202 with a Location to poll); the row is created with it.',
  description:
    'An entry that already has an output row is 409 document_exists, naming the row to generate instead. Poll getDocumentGeneration (the Location) until the generation is completed or failed.',
  params: ProjectParams,
  body: { schema: CatalogueGenerationRequest, mediaType: 'application/json' },
  prefetch: (p, claims) => [...documentPrefetch(p, claims), keys.user(claims.userId)],
  prefetchCollections: ({ project }) => [documentsCollection(project)],
  handle: async (ctx, { params, body }) => {
    const project = boundProjectOf(ctx, params.project);
    const existing = documentRows(ctx, project.id).find((d) => d.document_key === body.document_key);
    if (existing)
      throw conflict('document_exists', 'This catalogue entry has an output row: generate it through its own generation resource.', {
        document_id: existing.id,
        links: { generation: `${documentUrl(project.id, existing.id)}/generation` },
      });
    return startGeneration(ctx, project, body.document_key, undefined, body);
  },
});

export const documentOperations = [listDocuments, getDocument, getDocumentGeneration, startDocumentGeneration, startCatalogueGeneration];
