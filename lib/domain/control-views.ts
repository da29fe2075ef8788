import * as z from 'zod';
import { once } from './validation.js';
import { EvidenceView } from './evidence.js';
import { IMPLEMENTATION_STATUSES as ASSERTED_STATUSES, RESPONSIBILITIES } from './imports/rows.js';
import type { Permission } from './permissions.js';
import { STATUS_ORIGINS, visibleGuidance } from './provider-effects.js';
import {
  ALL_STATUSES,
  ASSESSMENT_PROPERTIES,
  attentionOf,
  matrixMissing,
  OUTCOMES,
  preparationMissing,
  SEVERITIES,
  type ControlListing,
  type JoinedControl,
} from './controls.js';
import type { FieldError } from '../errors.js';

/** How controls answer: the list item, and the detail with what this caller may see and do. */

const RecommendationView = once(() => z.object({ value: z.enum(['y', 'n']), rules: z.array(z.string()), reasons: z.array(z.string()) }));
const Attention = once(() => z.enum(['conflict', 'suggested_exclusion']).nullable());

const Identity = once(() => ({
  id: z.string(),
  catalogue_id: z.string(),
  label: z.string(),
  kind: z.enum(['control', 'principle']),
  title: z.string(),
  path: z.array(z.string()),
  essential_eight: z.array(z.string()),
  applicability: z.enum(['y', 'n']),
  applicability_origin: z.string(),
  applicability_attention: Attention(),
  implementation_status: z.enum(ALL_STATUSES).nullable(),
  workflow_state: z.string(),
  updated_at: z.string(),
}));

export const ControlListItem = once(() => z.object(Identity()).meta({ id: 'ControlListItem' }));

const Missing = once(() => z.object({ ready: z.boolean(), missing: z.array(z.object({ pointer: z.string(), detail: z.string() })) }));
const Pointers = once(() => z.object({ complete: z.boolean(), missing: z.array(z.object({ pointer: z.string(), detail: z.string() })) }));
const AllowedTransition = once(() => z.object({ id: z.string(), to_state: z.string(), comment: z.enum(['required', 'rejected']) }));

/** What the selected provider releases say of a control, as shown (the control stores references, lib/domain/provider-effects.ts). */
export const PROVIDER_GUIDANCE_FIELDS = once(() => ({
  provider_id: z.string(),
  release_id: z.string(),
  assertion_id: z.string(),
  responsibility: z.enum(RESPONSIBILITIES),
  implementation_status: z.enum(ASSERTED_STATUSES).nullable(),
  guidance: z.string().nullable(),
  guidance_truncated: z.boolean().meta({ description: 'The guidance was cut to this control\u2019s share of 16,000 characters.' }),
  restricted: z.boolean(),
}));

const ProviderGuidanceView = once(() => z.object(PROVIDER_GUIDANCE_FIELDS()));

export const Control = once(() =>
  z
    .object({
      ...Identity(),
      project_id: z.string(),
      statement: z.string(),
      classifications: z.array(z.string()),
      applicability_comment: z.string().nullable(),
      applicability_context: z.object({
        origin: z
          .string()
          .meta({ description: 'default_inclusion, initial_recommendation, explicit_user_choice, classification_exclusion or unknown_historical_provenance.' }),
        recommendation: RecommendationView().nullable(),
        recommended_at: z.string().nullable(),
        attention: Attention(),
        decided_at: z.string().nullable(),
        decided_by: z.string().nullable(),
      }),
      implementation_description: z.string().nullable(),
      implementation_summary: z.string().nullable(),
      overall_proposed_outcome: z.enum(OUTCOMES).nullable(),
      overall_proposed_rationale: z.string().nullable(),
      maturity_proposed_level: z.string().nullable(),
      last_transition: z
        .object({ id: z.string(), from: z.string(), to: z.string(), comment: z.string().nullable(), by: z.string(), at: z.string() })
        .nullable()
        .optional()
        .meta({
          description: 'The latest transition with its decision comment; absent to readers without the assessment view when it was an assessment transition.',
        }),
      allowed_actions: z.array(z.string()).meta({ description: 'Operation IDs this caller may call on the control now.' }),
      allowed_transitions: z.array(AllowedTransition()).meta({ description: 'Transitions this caller may take now; send one ID to POST …/transitions.' }),
      implementation_status_origin: z.enum(STATUS_ORIGINS).nullable().meta({
        description:
          'provider_assertion when the server set ec from a selected provider release; explicit_user_choice once a person set the status (the server then leaves it).',
      }),
      provider_guidance: z.array(ProviderGuidanceView()).meta({
        description:
          'Read-only: the confirmed assertions of the provider releases the project selects. Entries from restricted artefacts need view-restricted-provider-artefacts.',
      }),
      evidence_items: z.array(EvidenceView()).meta({ description: 'The control’s evidence, oldest first, each with its own item ETag.' }),
      assessment_preparation_readiness: Missing(),
      overall_assessed_outcome: z.enum(OUTCOMES).nullable().optional(),
      overall_assessed_rationale: z.string().nullable().optional(),
      evidence_references: z.array(z.string()).optional(),
      finding_severity: z.enum(SEVERITIES).nullable().optional(),
      assessor_notes: z.string().nullable().optional(),
      maturity_assessed_level: z.string().nullable().optional(),
      assessment_matrix_completeness: Pointers().optional(),
      evidence_snapshot: z
        .object({
          captured_at: z.string(),
          versions: z.array(z.object({ evidence_id: z.string(), version: z.number().int(), sha256: z.string().nullable() })),
          acknowledged_warnings: z.array(z.string()),
        })
        .nullable()
        .optional(),
      created_at: z.string(),
      redacted_fields: z.array(z.string()),
    })
    .meta({
      id: 'Control',
      description: 'Assessment properties need view-control-assessment, selected and held; without it they are absent and named in redacted_fields.',
    }),
);
export type ControlView = z.infer<ReturnType<typeof Control>>;

const ASSESSMENT_VIEW_FIELDS = [...ASSESSMENT_PROPERTIES, 'assessment_matrix_completeness', 'evidence_snapshot'] as const;

export const controlListItem = (c: ControlListing): z.infer<ReturnType<typeof ControlListItem>> => ({
  id: c.id,
  catalogue_id: c.catalogue_id,
  label: c.label,
  kind: c.kind,
  title: c.title,
  path: c.path,
  essential_eight: c.essential_eight,
  applicability: c.applicability,
  applicability_origin: c.applicability_origin,
  applicability_attention: attentionOf(c),
  implementation_status: c.implementation_status,
  workflow_state: c.workflow_state,
  updated_at: c.updated_at,
});

const pointers = (errors: FieldError[]) => errors.map(({ pointer, detail }) => ({ pointer, detail }));

export function controlView(
  c: JoinedControl,
  caller: {
    assessment: boolean;
    permissions: ReadonlySet<Permission>;
    allowedActions: string[];
    allowedTransitions: z.infer<ReturnType<typeof AllowedTransition>>[];
    evidence: EvidenceView[];
  },
): ControlView {
  const preparation = preparationMissing(c);
  const base = {
    ...controlListItem(c),
    project_id: c.project_id,
    statement: c.statement,
    classifications: c.classifications,
    applicability_comment: c.applicability_comment,
    applicability_context: {
      origin: c.applicability_origin,
      recommendation: c.recommendation,
      recommended_at: c.recommendation_at,
      attention: attentionOf(c),
      decided_at: c.applicability_decided_at ?? null,
      decided_by: c.applicability_decided_by ?? null,
    },
    implementation_description: c.implementation_description,
    implementation_summary: c.implementation_summary,
    overall_proposed_outcome: c.overall_proposed_outcome ?? null,
    overall_proposed_rationale: c.overall_proposed_rationale ?? null,
    maturity_proposed_level: c.maturity_proposed_level ?? null,
    allowed_actions: caller.allowedActions,
    allowed_transitions: caller.allowedTransitions,
    implementation_status_origin: c.implementation_status_origin ?? null,
    provider_guidance: visibleGuidance(c.provider_guidance, caller.permissions),
    evidence_items: caller.evidence,
    assessment_preparation_readiness: { ready: preparation.length === 0, missing: pointers(preparation) },
    created_at: c.created_at,
  };
  const { assessment: assessmentDecision = false, ...transition } = c.last_transition ?? {};
  const last_transition = c.last_transition ? (transition as NonNullable<ControlView['last_transition']>) : null;
  if (!caller.assessment) {
    if (assessmentDecision) return { ...base, redacted_fields: [...ASSESSMENT_VIEW_FIELDS, 'last_transition'] };
    return { ...base, last_transition, redacted_fields: [...ASSESSMENT_VIEW_FIELDS] };
  }
  const matrix = matrixMissing(c);
  return {
    ...base,
    overall_assessed_outcome: c.overall_assessed_outcome ?? null,
    overall_assessed_rationale: c.overall_assessed_rationale ?? null,
    evidence_references: c.evidence_references ?? [],
    finding_severity: c.finding_severity ?? null,
    assessor_notes: c.assessor_notes ?? null,
    maturity_assessed_level: c.maturity_assessed_level ?? null,
    assessment_matrix_completeness: { complete: matrix.length === 0, missing: pointers(matrix) },
    evidence_snapshot: c.evidence_snapshot ?? null,
    last_transition,
    redacted_fields: [],
  };
}
