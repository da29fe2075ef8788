import * as z from 'zod';
import { filledLine, filledText, multiLine, once, singleLine } from './validation.js';
import { CLASSIFICATION_CODES, type Classification } from './classifications.js';
import { Ulid } from './ids.js';
import { changesSomething } from './patch.js';
import { ESSENTIAL_EIGHT_TARGETS } from './setup-options.js';
import { DEFAULT_SETTINGS, type WorkflowSettings } from './workflow.js';

/**
 * Projects: created under a system as Setup projects, populated from an ISM release, then worked
 * on. Lifecycle (seed, Other lifecycles): `setup` until population starts, `initialising` while a
 * population run is active or after it failed (recovery runs start from there), `active` once the
 * project's controls exist; `archived` is a separate flag set outside the API.
 */
export const LIFECYCLE_STATES = ['setup', 'initialising', 'active'] as const;
type LifecycleState = (typeof LIFECYCLE_STATES)[number];
export const POPULATION_STATUSES = ['not_started', 'running', 'failed', 'completed'] as const;
type PopulationStatus = (typeof POPULATION_STATUSES)[number];
type EssentialEightTarget = (typeof ESSENTIAL_EIGHT_TARGETS)[number]['value'];
const TARGETS = ESSENTIAL_EIGHT_TARGETS.map((t) => t.value) as [EssentialEightTarget, ...EssentialEightTarget[]];

export const workflowSettingsOf = (p: { control_workflow?: Partial<WorkflowSettings> }): WorkflowSettings => ({ ...DEFAULT_SETTINGS, ...p.control_workflow });

const ControlWorkflow = once(() =>
  z.strictObject({
    edit_approval: z.boolean().optional().meta({ description: 'Implementation goes through approving_edit (an approve-edits decision) before assessment.' }),
    assessment_approval: z
      .boolean()
      .optional()
      .meta({ description: 'Assessment goes through approving_assessment (an approve-assessments decision) before assessed.' }),
  }),
);

export interface StoredProject {
  id: string;
  organisation_id: string;
  system_id: string;
  name: string;
  description: string | null;
  ism_release_id: string;
  ism_release_version: string;
  classification: Classification;
  essential_eight_target: EssentialEightTarget;
  lifecycle_state: LifecycleState;
  archived: boolean;
  population_run_id: string | null;
  population_status: PopulationStatus;
  /** Which submit paths the control workflow offers; absent on projects created before it existed (the defaults). */
  control_workflow?: WorkflowSettings;
  created_at: string;
  created_by: string;
  updated_at: string;
  version: number;
}

const Name = once(() => filledLine(200));
const Description = once(() => multiLine().max(5000).nullable());
const IsoDate = once(() => z.iso.date().meta({ description: 'YYYY-MM-DD' }));
const YesNo = once(() => z.enum(['yes', 'no']).nullable());

export const CreateProject = once(() =>
  z
    .strictObject({
      name: Name(),
      description: Description().optional(),
      ism_release_id: Ulid.meta({ description: 'A release from setup-options.' }),
      classification: z.enum(CLASSIFICATION_CODES).meta({ description: 'One of the organisation licensed classifications.' }),
      essential_eight_target: z.enum(TARGETS).default('none'),
      control_workflow: ControlWorkflow().optional().meta({ description: 'Approval steps of the control workflow; both off when omitted.' }),
    })
    .meta({ id: 'CreateProject' }),
);

export const UpdateSetupProject = once(() =>
  z
    .strictObject({
      name: Name().optional(),
      description: Description().optional(),
      essential_eight_target: z.enum(TARGETS).optional(),
      control_workflow: ControlWorkflow().optional().meta({
        description: 'Merged per setting. Controls already waiting for an approval keep their approval transitions.',
      }),
      project_edit_reason: filledText(1000).optional().meta({ description: 'Required when the Essential Eight target changes.' }),
    })
    .apply(changesSomething, 'property', ['project_edit_reason'])
    .meta({ id: 'UpdateSetupProject', description: 'JSON merge patch. Classification and ISM release are fixed at creation.' }),
);

const Release = once(() => z.object({ id: z.string(), version: z.string() }));

/** Identity: what view-projects reads (seed: project identity stays readable with view-projects). */
const Identity = once(() => ({
  id: z.string(),
  organisation_id: z.string(),
  system_id: z.string(),
  name: z.string(),
  ism_release: Release(),
  classification: z.enum(CLASSIFICATION_CODES),
  essential_eight_target: z.enum(TARGETS),
  lifecycle_state: z.enum(LIFECYCLE_STATES),
  archived: z.boolean(),
}));

export const SetupProject = once(() =>
  z
    .object({
      ...Identity(),
      description: z.string().nullable().optional(),
      control_workflow: z.object({ edit_approval: z.boolean(), assessment_approval: z.boolean() }).optional(),
      population: z.object({ run_id: z.string().nullable(), status: z.enum(POPULATION_STATUSES) }),
      created_at: z.string(),
      updated_at: z.string(),
      redacted_fields: z.array(z.string()),
    })
    .meta({ id: 'SetupProject', description: 'Setup fields (description) need manage-projects; without it they are named in redacted_fields.' }),
);
export type SetupProject = z.infer<ReturnType<typeof SetupProject>>;

/** Seed, Named resources: identity, hierarchy references, release, classification, lifecycle, target; nothing else. */
export const ProjectInputs = once(() => z.strictObject(Identity()).meta({ id: 'ProjectInputs' }));

/** Setup-only: what view-projects alone does not read (it does read population status, seed's permission table). */
const SETUP_FIELDS = ['description', 'control_workflow'] as const;

export function identityOf(p: StoredProject): z.infer<ReturnType<typeof ProjectInputs>> {
  return {
    id: p.id,
    organisation_id: p.organisation_id,
    system_id: p.system_id,
    name: p.name,
    ism_release: { id: p.ism_release_id, version: p.ism_release_version },
    classification: p.classification,
    essential_eight_target: p.essential_eight_target,
    lifecycle_state: p.lifecycle_state,
    archived: p.archived,
  };
}

export function setupProjectView(p: StoredProject, full: boolean): SetupProject {
  const base = {
    ...identityOf(p),
    population: { run_id: p.population_run_id, status: p.population_status },
    created_at: p.created_at,
    updated_at: p.updated_at,
  };
  if (!full) return { ...base, redacted_fields: [...SETUP_FIELDS] };
  return { ...base, description: p.description, control_workflow: workflowSettingsOf(p), redacted_fields: [] };
}

/* Scope ------------------------------------------------------------------------------------- */

/** Scope facts that drive applicability recommendations (yes: in scope, no: out of scope). */
export const SCOPE_TECHNOLOGIES = ['wireless_networks', 'mobile_devices', 'email_services', 'software_development'] as const;

export const ScopeData = once(() =>
  z
    .strictObject({
      assessment_type: z.enum(['initial', 'reassessment', 'change']).nullable().optional(),
      objectives: multiLine().max(5000).nullable().optional(),
      in_scope: multiLine().max(5000).nullable().optional(),
      out_of_scope: multiLine().max(5000).nullable().optional(),
      locations: z.array(filledLine(200)).max(50).nullable().optional(),
      planned_start: IsoDate().nullable().optional(),
      planned_end: IsoDate().nullable().optional(),
      ...Object.fromEntries(SCOPE_TECHNOLOGIES.map((t) => [t, YesNo().optional()])),
    })
    .refine((d) => !d.planned_start || !d.planned_end || d.planned_end >= d.planned_start, { message: 'must not precede planned_start', path: ['planned_end'] })
    .meta({ id: 'ScopeData' }),
);

export const ProviderSelection = once(() => z.strictObject({ provider_id: Ulid, release_id: Ulid }).meta({ id: 'ProviderSelection' }));
export type ProviderSelection = z.infer<ReturnType<typeof ProviderSelection>>;

export const UpdateScope = once(() =>
  z
    .strictObject({
      data: ScopeData().optional().meta({ description: 'Replaces the saved scope data as a whole.' }),
      provider_selections: z.array(ProviderSelection()).max(50).optional().meta({ description: 'Omitted: kept. []: cleared.' }),
    })
    .apply(changesSomething, 'of data or provider_selections')
    .meta({ id: 'UpdateScope' }),
);

export const Scope = once(() =>
  z
    .object({
      data: z.record(z.string(), z.unknown()),
      provider_selections: z.array(ProviderSelection()),
      provider_selections_updated_at: z.string().nullable().optional(),
      provider_selections_updated_by: z.string().nullable().optional(),
      updated_at: z.string().nullable(),
    })
    .meta({ id: 'ProjectScope', description: 'Project credentials read the scope without the provider-selection management metadata.' }),
);

/* Engagement -------------------------------------------------------------------------------- */

/** The allowlisted subset project credentials read; the rest is setup-only. */
const ENGAGEMENT_PUBLIC = ['engagement_reference', 'client_name', 'assessor_organisation', 'lead_assessor_name', 'start_date', 'end_date'] as const;
const ENGAGEMENT_SETUP_ONLY = ['commercial_reference', 'internal_notes'] as const;

const EngagementData = once(() =>
  z
    .strictObject({
      engagement_reference: singleLine().max(200).nullable().optional(),
      client_name: singleLine().max(200).nullable().optional(),
      assessor_organisation: singleLine().max(200).nullable().optional(),
      lead_assessor_name: singleLine().max(200).nullable().optional(),
      start_date: IsoDate().nullable().optional(),
      end_date: IsoDate().nullable().optional(),
      commercial_reference: singleLine().max(200).nullable().optional(),
      internal_notes: multiLine().max(5000).nullable().optional(),
    })
    .refine((d) => !d.start_date || !d.end_date || d.end_date >= d.start_date, { message: 'must not precede start_date', path: ['end_date'] }),
);

export const UpdateEngagement = once(() =>
  EngagementData().apply(changesSomething, 'property').meta({
    id: 'UpdateEngagement',
    description: 'JSON merge patch per field.',
  }),
);

const Field = once(() => z.string().nullable());
export const Engagement = once(() =>
  z
    .object({
      engagement_reference: Field(),
      client_name: Field(),
      assessor_organisation: Field(),
      lead_assessor_name: Field(),
      start_date: Field(),
      end_date: Field(),
      commercial_reference: Field().optional(),
      internal_notes: Field().optional(),
      updated_at: Field(),
      redacted_fields: z.array(z.string()),
    })
    .meta({ id: 'ProjectEngagement', description: 'Project credentials read the allowlisted subset; setup-only fields are named in redacted_fields.' }),
);
type Engagement = z.infer<ReturnType<typeof Engagement>>;

export function engagementView(data: Record<string, unknown> | undefined, updatedAt: string | null, full: boolean): Engagement {
  const fields = full ? [...ENGAGEMENT_PUBLIC, ...ENGAGEMENT_SETUP_ONLY] : [...ENGAGEMENT_PUBLIC];
  return {
    ...(Object.fromEntries(fields.map((f) => [f, (data?.[f] as string | null | undefined) ?? null])) as Record<
      (typeof ENGAGEMENT_PUBLIC)[number],
      string | null
    >),
    updated_at: updatedAt,
    redacted_fields: full ? [] : [...ENGAGEMENT_SETUP_ONLY],
  };
}
