import * as z from 'zod';
import { once } from './validation.js';

/**
 * The document catalogue: the documents a project can generate, by stable key. Register rows name
 * them in document_ref columns; the document operations build their outputs on the same keys.
 */
export const DOCUMENT_KEYS = [
  'ssp',
  'soa',
  'controls-json',
  'e8-assessment',
  'security-assessment-report',
  'oscal-ssp',
  'oscal-assessment-results',
  'oscal-poam',
] as const;
export type DocumentKey = (typeof DOCUMENT_KEYS)[number];

const KNOWN: ReadonlySet<string> = new Set(DOCUMENT_KEYS);

export const isDocumentKey = (key: string): key is DocumentKey => KNOWN.has(key);

export const XLSX_MEDIA_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** What a dependency checks. Each is evaluated from the project and its control counts at request time and again by the worker. */
const REQUIRED_KEYS = ['population_completed', 'essential_eight_target', 'controls_assessed'] as const;
const ADVISORY_KEYS = ['network_diagram', 'organisation_logo'] as const;
type RequiredKey = (typeof REQUIRED_KEYS)[number];
type AdvisoryKey = (typeof ADVISORY_KEYS)[number];
export const DEPENDENCY_KEYS = [...REQUIRED_KEYS, ...ADVISORY_KEYS] as const;
export type DependencyKey = (typeof DEPENDENCY_KEYS)[number];

export interface CatalogueTemplate {
  key: DocumentKey;
  title: string;
  description: string;
  format: 'pdf' | 'xlsx' | 'json';
  media_type: string;
  /** Unmet required dependencies block generation (409); advisory ones are reported and leave the document thinner. */
  requires: readonly RequiredKey[];
  advises: readonly AdvisoryKey[];
}

const template = (t: CatalogueTemplate) => t;

export const CATALOGUE: Readonly<Record<DocumentKey, CatalogueTemplate>> = {
  ssp: template({
    key: 'ssp',
    title: 'System Security Plan',
    description: 'The system, its scope and context, the network diagram, and the implementation of each applicable control.',
    format: 'pdf',
    media_type: 'application/pdf',
    requires: ['population_completed'],
    advises: ['network_diagram', 'organisation_logo'],
  }),
  soa: template({
    key: 'soa',
    title: 'Statement of Applicability',
    description:
      'Every control with its topic, catalogue revision and last update, applicability (where that came from and the comment), implementation status and description, assessed outcome and severity, and evidence count.',
    format: 'xlsx',
    media_type: XLSX_MEDIA_TYPE,
    requires: ['population_completed'],
    advises: [],
  }),
  'controls-json': template({
    key: 'controls-json',
    title: 'Control export',
    description: 'Every control with applicability, implementation, assessment and evidence references, as JSON.',
    format: 'json',
    media_type: 'application/json',
    requires: ['population_completed'],
    advises: [],
  }),
  'e8-assessment': template({
    key: 'e8-assessment',
    title: 'Essential Eight Assessment',
    description:
      'How much of each strategy and level was assessed, the maturity each strategy shows (a level achieved, not achieved or not determined), and per strategy its scope, test methods and evidence quality, samples, compensating controls, findings and recommendations.',
    format: 'pdf',
    media_type: 'application/pdf',
    requires: ['population_completed', 'essential_eight_target'],
    advises: ['organisation_logo'],
  }),
  'security-assessment-report': template({
    key: 'security-assessment-report',
    title: 'Security Assessment Report',
    description: 'Findings by severity, outcomes, the evidence each conclusion cites and a summary of the registers.',
    format: 'pdf',
    media_type: 'application/pdf',
    requires: ['population_completed', 'controls_assessed'],
    advises: ['organisation_logo'],
  }),
  'oscal-ssp': template({
    key: 'oscal-ssp',
    title: 'OSCAL System Security Plan',
    description: 'The project as an OSCAL 1.1.3 System Security Plan referencing the ISM catalogue by its OSCAL control ids.',
    format: 'json',
    media_type: 'application/json',
    requires: ['population_completed'],
    advises: [],
  }),
  'oscal-assessment-results': template({
    key: 'oscal-assessment-results',
    title: 'OSCAL Assessment Results',
    description: 'The assessment as OSCAL 1.1.3 Assessment Results: reviewed controls, observations, findings and risks.',
    format: 'json',
    media_type: 'application/json',
    requires: ['population_completed', 'controls_assessed'],
    advises: [],
  }),
  'oscal-poam': template({
    key: 'oscal-poam',
    title: 'OSCAL Plan of Action and Milestones',
    description:
      'The rows of the POA&M register and the open findings no row plans for yet, as an OSCAL 1.1.3 Plan of Action and Milestones: risks with the status, milestone and due date of their row.',
    format: 'json',
    media_type: 'application/json',
    requires: ['population_completed'],
    advises: [],
  }),
};

/** What the required dependencies are evaluated on: the request reads them in its own round trip, the worker again before it renders. */
export interface RequiredFacts {
  populationStatus: string;
  essentialEightTarget: string;
  assessedControls: number;
}

export interface DependencyFacts extends RequiredFacts {
  diagramReady: boolean;
  logoReady: boolean;
}

interface Check<F> {
  title: string;
  met: (f: F) => boolean;
  unmet: string;
}

const REQUIRED: Record<RequiredKey, Check<RequiredFacts>> = {
  population_completed: {
    title: 'Project population completed',
    met: (f) => f.populationStatus === 'completed',
    unmet: 'The project has no completed population: its controls are not all there yet.',
  },
  essential_eight_target: {
    title: 'Essential Eight target set',
    met: (f) => f.essentialEightTarget !== 'none',
    unmet: 'The project has no Essential Eight target maturity level.',
  },
  controls_assessed: {
    title: 'Controls assessed',
    met: (f) => f.assessedControls > 0,
    unmet: 'No control of the project has reached the assessed state.',
  },
};

const ADVISORY: Record<AdvisoryKey, Check<DependencyFacts>> = {
  network_diagram: {
    title: 'Network diagram registered',
    met: (f) => f.diagramReady,
    unmet: 'The project has no ready network diagram; the document leaves it out.',
  },
  organisation_logo: {
    title: 'Organisation logo',
    met: (f) => f.logoReady,
    unmet: 'The organisation has no ready logo; the title page goes without.',
  },
};

export const DependencyView = once(() =>
  z
    .object({
      key: z.enum(DEPENDENCY_KEYS),
      title: z.string(),
      required: z.boolean(),
      status: z.enum(['met', 'unmet']),
      detail: z.string().nullable(),
    })
    .meta({ id: 'DocumentDependency' }),
);
export type DependencyView = z.infer<ReturnType<typeof DependencyView>>;

export const DependencyEvaluation = once(() =>
  z
    .object({
      complete: z.boolean().meta({ description: 'True when every required dependency is met.' }),
      dependencies: z.array(DependencyView()),
    })
    .meta({ id: 'DocumentDependencies' }),
);
export type DependencyEvaluation = z.infer<ReturnType<typeof DependencyEvaluation>>;

export function evaluateDependencies(key: DocumentKey, facts: DependencyFacts): DependencyEvaluation {
  const t = CATALOGUE[key];
  const view = (k: DependencyKey, check: Check<DependencyFacts>, required: boolean): DependencyView => {
    const met = check.met(facts);
    return { key: k, title: check.title, required, status: met ? 'met' : 'unmet', detail: met ? null : check.unmet };
  };
  const dependencies = [...t.requires.map((k) => view(k, REQUIRED[k], true)), ...t.advises.map((k) => view(k, ADVISORY[k], false))];
  return { complete: requirementsMet(key, facts), dependencies };
}

/** Whether every required dependency of the template is met: what blocks a generation. */
export const requirementsMet = (key: DocumentKey, facts: RequiredFacts): boolean => CATALOGUE[key].requires.every((k) => REQUIRED[k].met(facts));

/* Generation requests ------------------------------------------------------------------------ */

export const GenerationOptions = once(() =>
  z
    .strictObject({
      draft_watermark: z
        .boolean()
        .optional()
        .meta({ description: 'Omitted or true: a draft with the DRAFT watermark. false: final output, which needs approval_confirmed.' }),
      show_implementation_notes: z.boolean().optional().meta({ description: "The implementer's proposed outcomes and rationale. Default false." }),
      show_assessor_notes: z.boolean().optional().meta({ description: "The assessor's working notes. Default false." }),
    })
    .meta({ id: 'GenerationOptions' }),
);

const requestShape = once(() => ({
  generation_options: GenerationOptions().optional(),
  approval_confirmed: z.boolean().optional().meta({ description: 'Required (true) for final output; the server records who confirmed and when.' }),
}));

const approvalRule = (r: { generation_options?: { draft_watermark?: boolean | undefined } | undefined; approval_confirmed?: boolean | undefined }) =>
  r.generation_options?.draft_watermark !== false || r.approval_confirmed === true;
const approvalIssue = { message: 'final output (draft_watermark false) needs approval_confirmed true', path: ['approval_confirmed'] };
const draftRule = (r: { generation_options?: { draft_watermark?: boolean | undefined } | undefined; approval_confirmed?: boolean | undefined }) =>
  !(r.approval_confirmed === true && r.generation_options?.draft_watermark !== false);
const draftIssue = { message: 'a draft is not approved: set generation_options.draft_watermark false for final output', path: ['approval_confirmed'] };

export const GenerationRequest = once(() =>
  z.strictObject(requestShape()).refine(approvalRule, approvalIssue).refine(draftRule, draftIssue).meta({
    id: 'GenerationRequest',
    description: 'Approval snapshots, storage paths, workflow states and Essential Eight maturity overrides are not accepted (422).',
  }),
);
export type GenerationRequest = z.output<ReturnType<typeof GenerationRequest>>;

export const CatalogueGenerationRequest = once(() =>
  z
    .strictObject({ document_key: z.enum(DOCUMENT_KEYS), ...requestShape() })
    .refine(approvalRule, approvalIssue)
    .refine(draftRule, draftIssue)
    .meta({ id: 'CatalogueGenerationRequest', description: 'For a catalogue entry that has no output row yet.' }),
);

export interface ResolvedOptions {
  output: 'draft' | 'final';
  draft_watermark: boolean;
  show_implementation_notes: boolean;
  show_assessor_notes: boolean;
}

export function resolveOptions(r: GenerationRequest): ResolvedOptions {
  const final = r.generation_options?.draft_watermark === false;
  return {
    output: final ? 'final' : 'draft',
    draft_watermark: !final,
    show_implementation_notes: r.generation_options?.show_implementation_notes ?? false,
    show_assessor_notes: r.generation_options?.show_assessor_notes ?? false,
  };
}

/* Output rows --------------------------------------------------------------------------------- */

export const GENERATION_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
export type GenerationStatus = (typeof GENERATION_STATUSES)[number];

/** The safe reasons a generation failed: never a raw error or a storage path. */
export const GENERATION_ERRORS = ['generation_failed', 'authorisation_lost', 'dependencies_incomplete', 'generation_abandoned'] as const;
export type GenerationError = (typeof GENERATION_ERRORS)[number];

export interface StoredGeneration {
  id: string;
  status: GenerationStatus;
  options: ResolvedOptions;
  requested_by: string;
  requested_by_name: string;
  token_id: string;
  requested_at: string;
  approved_by: string | null;
  approved_by_name: string | null;
  approved_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  error_code: GenerationError | null;
  /**
   * The installation's public URL as the request's function knew it (origin and stage path), which
   * the document links to: the workers are deployed before the API whose address it is. Absent on
   * generations requested before it was recorded.
   */
  public_url?: string;
}

/** A generated file as the output row keeps it; the storage key never leaves the server. */
export interface StoredOutput {
  s3_key: string;
  generation_id: string;
  output: 'draft' | 'final';
  media_type: string;
  file_name: string;
  size: number;
  sha256: string;
  generated_at: string;
  generated_by: string;
  generated_by_name: string;
  approved_by: string | null;
  approved_by_name: string | null;
  approved_at: string | null;
}

export interface StoredDocument {
  id: string;
  project_id: string;
  document_key: DocumentKey;
  created_at: string;
  created_by: string;
  generation: StoredGeneration;
  /** The latest completed output: stays downloadable while a newer generation runs or after one fails. */
  output: StoredOutput | null;
  version: number;
}

/**
 * A queued or running generation whose lease is gone never finished: a crashed worker, or one that
 * ran out of retries. It reads as failed, and the next generation may start.
 */
export function effectiveGeneration(g: StoredGeneration, lease: { generation_id: string; lease_until: string } | undefined, now: Date): StoredGeneration {
  const active = g.status === 'queued' || g.status === 'running';
  if (!active) return g;
  const mine = lease?.generation_id === g.id ? lease : undefined;
  if (mine && mine.lease_until > now.toISOString()) return g;
  return { ...g, status: 'failed', error_code: 'generation_abandoned', finished_at: mine ? mine.lease_until : g.requested_at };
}

/** The file name a download carries: system short code, document key, output, time; never a user's free text. */
export function outputFileName(shortCode: string, key: DocumentKey, output: 'draft' | 'final', at: string): string {
  const stamp = at.slice(0, 19).replace(/[-:]/g, '').replace('T', '-');
  const extension = CATALOGUE[key].format;
  return `${shortCode}-${key}-${output}-${stamp}.${extension}`;
}
