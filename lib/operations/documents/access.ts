import * as z from 'zod';
import { once } from '../../domain/validation.js';
import {
  CATALOGUE,
  DependencyEvaluation,
  effectiveGeneration,
  evaluateDependencies,
  GENERATION_ERRORS,
  GENERATION_STATUSES,
  type DocumentKey,
  type StoredDocument,
  type StoredGeneration,
} from '../../domain/documents.js';
import { notFound } from '../../errors.js';
import type { TokenClaims } from '../../auth/tokens.js';
import { asProjectSummary, countsBy, SUMMARY_PREFIX } from '../../store/controls.js';
import { asGenerationLease, toDocument } from '../../store/documents.js';
import { keys } from '../../store/keys.js';
import type { Item } from '../../store/read.js';
import { Ulid } from '../kernel/common.js';
import type { OperationContext } from '../kernel/operation.js';
import { boundProjectOf, diagramOf, ProjectParams } from '../projects/access.js';
import { asFileOwner } from '../../store/file-owners.js';
import type { StoredProject } from '../../domain/projects.js';
import { apiUrl } from '../../domain/api-paths.js';

export const DOCUMENTS_PATH = '/projects/{project}/documents';
export const DocumentParams = once(() => ProjectParams().extend({ document: Ulid }));
export type DocumentParams = z.output<ReturnType<typeof DocumentParams>>;

export const documentUrl = (project: string, document: string) => apiUrl(`${DOCUMENTS_PATH}/{document}`, { project, document });

/** Everything a document read or a generation request needs, in the authentication round trip. */
export const documentPrefetch = ({ project }: { project: string }, claims: TokenClaims) => [
  keys.project(project),
  keys.projectSummary(project),
  keys.projectDiagram(project),
  keys.generationLease(project),
  ...(claims.organisationId ? [keys.organisationLogo(claims.organisationId)] : []),
];

const Person = once(() => z.object({ id: z.string(), name: z.string() }).meta({ id: 'DocumentPerson' }));

export const GenerationView = once(() =>
  z
    .object({
      id: z.string(),
      status: z.enum(GENERATION_STATUSES),
      output: z.enum(['draft', 'final']),
      options: z.object({ draft_watermark: z.boolean(), show_implementation_notes: z.boolean(), show_assessor_notes: z.boolean() }),
      requested_by: Person(),
      requested_at: z.string(),
      approved_by: Person().nullable(),
      approved_at: z.string().nullable(),
      started_at: z.string().nullable(),
      finished_at: z.string().nullable(),
      error_code: z.enum(GENERATION_ERRORS).nullable().meta({
        description:
          'Why it failed: generation_failed, authorisation_lost (the requesting credential or its permissions are gone), dependencies_incomplete (changed before the worker ran), generation_abandoned (no worker finished it before its lease expired).',
      }),
    })
    .meta({ id: 'DocumentGeneration' }),
);

const OutputView = once(() =>
  z
    .object({
      output: z.enum(['draft', 'final']),
      media_type: z.string(),
      file_name: z.string(),
      size: z.number().int(),
      sha256: z.string(),
      generated_at: z.string(),
      generated_by: Person(),
      approved_by: Person().nullable(),
      approved_at: z.string().nullable(),
    })
    .meta({ id: 'DocumentOutput', description: 'The latest completed output; it stays downloadable while a newer generation runs or after one fails.' }),
);

export const DocumentView = once(() =>
  z
    .object({
      id: z.string(),
      document_key: z.string(),
      title: z.string(),
      format: z.enum(['pdf', 'xlsx', 'json']),
      media_type: z.string(),
      status: z.enum(['generating', 'ready', 'failed']).meta({
        description:
          'generating while its generation is queued or running; ready when an output is downloadable and no generation failed since; failed otherwise.',
      }),
      generation: GenerationView(),
      output: OutputView().nullable(),
      dependencies: DependencyEvaluation(),
      links: z.object({ self: z.string(), generation: z.string(), download: z.string().nullable() }),
    })
    .meta({ id: 'Document' }),
);
export type DocumentView = z.infer<ReturnType<typeof DocumentView>>;

const person = (id: string | null, name: string | null) => (id ? { id, name: name ?? '' } : null);

export function generationView(g: StoredGeneration): z.infer<ReturnType<typeof GenerationView>> {
  return {
    id: g.id,
    status: g.status,
    output: g.options.output,
    options: {
      draft_watermark: g.options.draft_watermark,
      show_implementation_notes: g.options.show_implementation_notes,
      show_assessor_notes: g.options.show_assessor_notes,
    },
    requested_by: { id: g.requested_by, name: g.requested_by_name },
    requested_at: g.requested_at,
    approved_by: person(g.approved_by, g.approved_by_name),
    approved_at: g.approved_at,
    started_at: g.started_at,
    finished_at: g.finished_at,
    error_code: g.error_code,
  };
}

/** The dependency evaluation of a catalogue entry for this project, from the prefetched items. */
export function dependenciesOf(ctx: OperationContext, project: StoredProject, key: DocumentKey) {
  const assessed = countsBy(asProjectSummary(ctx.prefetched(keys.projectSummary(project.id))), SUMMARY_PREFIX.workflowState).assessed ?? 0;
  return evaluateDependencies(key, {
    populationStatus: project.population_status,
    essentialEightTarget: project.essential_eight_target,
    assessedControls: assessed,
    diagramReady: diagramOf(ctx, project.id)?.file_status === 'ready',
    logoReady: asFileOwner(ctx.prefetched(keys.organisationLogo(project.organisation_id)))?.file_status === 'ready',
  });
}

export function documentView(ctx: OperationContext, project: StoredProject, d: StoredDocument): DocumentView {
  const t = CATALOGUE[d.document_key];
  const generation = effectiveGeneration(d.generation, asGenerationLease(ctx.prefetched(keys.generationLease(project.id))), ctx.now);
  const active = generation.status === 'queued' || generation.status === 'running';
  const url = documentUrl(project.id, d.id);
  const o = d.output;
  return {
    id: d.id,
    document_key: d.document_key,
    title: t.title,
    format: t.format,
    media_type: t.media_type,
    status: active ? 'generating' : generation.status === 'completed' && o ? 'ready' : 'failed',
    generation: generationView(generation),
    output: o
      ? {
          output: o.output,
          media_type: o.media_type,
          file_name: o.file_name,
          size: o.size,
          sha256: o.sha256,
          generated_at: o.generated_at,
          generated_by: { id: o.generated_by, name: o.generated_by_name },
          approved_by: person(o.approved_by, o.approved_by_name),
          approved_at: o.approved_at,
        }
      : null,
    dependencies: dependenciesOf(ctx, project, d.document_key),
    links: { self: url, generation: `${url}/generation`, download: o ? `${url}/download` : null },
  };
}

/** The project's document (a project credential is bound to its project; 404 for a row of another). */
export function documentOf(ctx: OperationContext, params: DocumentParams): { project: StoredProject; document: StoredDocument } {
  const project = boundProjectOf(ctx, params.project);
  const item: Item | undefined = ctx.prefetched(keys.document(project.id, params.document));
  if (!item) throw notFound();
  return { project, document: toDocument(item) };
}
