import * as z from 'zod';
import { inConflict, type Origin, type Recommendation } from './applicability.js';
import { type CatalogueEntry, MATURITY_LEVELS } from './oscal.js';
import type { FieldError } from '../errors.js';
import { filledLine, multiLine, once, singleLine } from './validation.js';
import { changesSomething } from './patch.js';
import type { GuidanceReference, ProviderGuidance, StatusOrigin } from './provider-effects.js';

/** What clients send; `ec` (effective through a confirmed external-provider assertion) is set by the server only, so the request enum refuses it (422). */
export const IMPLEMENTATION_STATUSES = ['not_implemented', 'planned', 'partially_implemented', 'implemented', 'alternate_control'] as const;
/** Every status a control can hold: what clients send, and the server's `ec`. */
export const ALL_STATUSES = [...IMPLEMENTATION_STATUSES, 'ec'] as const;
/** Every assessment outcome; counted, with not_assessed for none, in the project summary. */
export const OUTCOMES = ['effective', 'ineffective', 'no_visibility', 'not_implemented', 'not_assessed', 'common_control'] as const;
type Outcome = (typeof OUTCOMES)[number];
export const SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;
/** Seed, Assessment rules: these outcomes need a finding severity. */
const NEEDS_SEVERITY: readonly Outcome[] = ['ineffective', 'no_visibility', 'not_implemented'];
const MATURITY = ['ML0', ...MATURITY_LEVELS] as const;

/**
 * A project's control as stored: what places it in the catalogue, lists and filters (ids, kind,
 * title, path, position, Essential Eight levels), the assessed party's implementation (and its
 * draft claims, `*_proposed_*`), the assessor's conclusions (`*_assessed_*` and the assessment
 * record), its applicability with where that came from, its place in the workflow, and which
 * provider assertions speak of it. The catalogue's texts and the providers' words are not copied
 * onto it (JoinedControl): a write is charged by the larger of the item's sizes before and after,
 * per KB, and the copies took the item over 1 KB (issue 25).
 */
export interface StoredControl {
  id: string;
  project_id: string;
  catalogue_id: string;
  label: string;
  kind: 'control' | 'principle';
  title: string;
  path: string[];
  position: number;
  essential_eight: string[];
  applicability: 'y' | 'n';
  applicability_origin: Origin;
  applicability_comment: string | null;
  applicability_decided_at?: string | null;
  applicability_decided_by?: string | null;
  recommendation: Recommendation | null;
  recommendation_at: string | null;
  implementation_status: (typeof ALL_STATUSES)[number] | null;
  /** Absent on statuses set before origins were kept: those may have been choices, so the server leaves them. */
  implementation_status_origin?: StatusOrigin | null;
  implementation_description: string | null;
  implementation_summary: string | null;
  overall_proposed_outcome?: Outcome | null;
  overall_proposed_rationale?: string | null;
  maturity_proposed_level?: string | null;
  overall_assessed_outcome?: Outcome | null;
  overall_assessed_rationale?: string | null;
  evidence_references?: string[];
  finding_severity?: (typeof SEVERITIES)[number] | null;
  assessor_notes?: string | null;
  maturity_assessed_level?: string | null;
  workflow_state: string;
  last_transition?: { id: string; from: string; to: string; comment: string | null; by: string; at: string; assessment: boolean } | null;
  evidence_snapshot?: {
    captured_at: string;
    versions: { evidence_id: string; version: number; sha256: string | null }[];
    acknowledged_warnings: string[];
  } | null;
  /** Server-owned: the assertions of the selected provider releases about the control (lib/domain/provider-effects.ts). */
  provider_guidance?: GuidanceReference[];
  /** The open approval task of the decision state the control is in, which the decision closes. */
  approval_task_id?: string | null;
  created_at: string;
  updated_at: string;
  version: number;
}

/** What a control shows from its catalogue entry, which the project's release holds and never changes. */
export type CatalogueText = Pick<CatalogueEntry, 'statement' | 'classifications'>;

/** A control as reads show it: the stored control with its catalogue text and its provider guidance joined. */
export interface JoinedControl extends Omit<StoredControl, 'provider_guidance'>, CatalogueText {
  provider_guidance: ProviderGuidance[];
}

/** What the control list shows and filters on: the statement and the assessment stay behind. */
export const LIST_FIELDS = [
  'id',
  'position',
  'catalogue_id',
  'label',
  'kind',
  'title',
  'path',
  'essential_eight',
  'applicability',
  'applicability_origin',
  'recommendation',
  'implementation_status',
  'workflow_state',
  'updated_at',
] as const;
export type ControlListing = Pick<StoredControl, (typeof LIST_FIELDS)[number]>;

/* Requests --------------------------------------------------------------------------------- */

const Text = (max: number) => multiLine().max(max).nullable().optional();
const Comment = once(() => multiLine().max(5000).nullable().optional());

/** Assessment conclusions: written through PATCH …/assessment only (listed so that reading them builds no schema; ASSESSMENT_FIELDS has exactly these). */
export const ASSESSMENT_PROPERTIES = [
  'overall_assessed_outcome',
  'overall_assessed_rationale',
  'evidence_references',
  'finding_severity',
  'assessor_notes',
  'maturity_assessed_level',
] as const;

const ASSESSMENT_FIELDS = once(
  () =>
    ({
      overall_assessed_outcome: z
        .enum(OUTCOMES)
        .nullable()
        .optional()
        .meta({ description: 'not_assessed counts as incomplete; common_control only on SSP control rows (kind control).' }),
      overall_assessed_rationale: Text(20_000),
      evidence_references: z
        .array(filledLine(1000))
        .max(100)
        .nullable()
        .optional()
        .meta({ description: 'What the conclusion rests on (evidence item IDs, document sections). Replaced as a whole; null clears.' }),
      finding_severity: z
        .enum(SEVERITIES)
        .nullable()
        .optional()
        .meta({ description: 'Needed by the outcomes ineffective, no_visibility and not_implemented.' }),
      assessor_notes: Text(20_000),
      maturity_assessed_level: z.enum(MATURITY).nullable().optional().meta({ description: 'Essential Eight controls only.' }),
    }) satisfies Record<(typeof ASSESSMENT_PROPERTIES)[number], z.ZodType>,
);
const ASSESSED_PROPERTIES = ASSESSMENT_PROPERTIES.filter((p) => p.includes('_assessed_'));

export const UpdateControlImplementation = once(() =>
  z
    .strictObject({
      implementation_status: z
        .enum(IMPLEMENTATION_STATUSES)
        .nullable()
        .optional()
        .meta({ description: 'ec (effective through a confirmed external-provider assertion) is server-owned: sending it is 422.' }),
      implementation_description: Text(20_000),
      implementation_summary: Text(2000),
      applicability: z.enum(['y', 'n']).optional().meta({ description: 'Records an explicit decision even when unchanged.' }),
      applicability_comment: Comment().meta({ description: 'The rationale for an exclusion, or for a choice that differs from the recommendation.' }),
      overall_proposed_outcome: z.enum(OUTCOMES).nullable().optional().meta({ description: "The assessed party's draft claim." }),
      overall_proposed_rationale: Text(20_000),
      maturity_proposed_level: z.enum(MATURITY).nullable().optional().meta({ description: 'Essential Eight controls only.' }),
      ...Object.fromEntries(
        ASSESSED_PROPERTIES.map((p) => [
          p,
          z.unknown().optional().meta({ description: 'Refused here: 403 without assessment authority, 422 with it (use PATCH …/assessment).' }),
        ]),
      ),
    })
    .apply(changesSomething, 'property')
    .meta({
      id: 'UpdateControlImplementation',
      description: 'JSON merge patch. Needs an editable project and a workflow state that allows implementation edits.',
    }),
);
type ImplementationPatch = z.output<ReturnType<typeof UpdateControlImplementation>>;

export const UpdateControlAssessment = once(() =>
  z
    .strictObject(ASSESSMENT_FIELDS())
    .apply(changesSomething, 'property')
    .meta({ id: 'UpdateControlAssessment', description: 'JSON merge patch. Needs an editable project and a workflow state that allows assessment edits.' }),
);
type AssessmentPatch = z.output<ReturnType<typeof UpdateControlAssessment>>;

export const TransitionRequest = once(() =>
  z
    .strictObject({
      transition: singleLine().min(1).max(64).meta({ description: 'An ID from allowed_transitions.' }),
      comment: multiLine()
        .max(5000)
        .optional()
        .meta({ description: 'Required, non-blank, on approval and rejection decisions; refused (422) on every other transition.' }),
      acknowledge_evidence_warnings: z.boolean().optional(),
    })
    .meta({ id: 'ControlTransitionRequest' }),
);

/** The *_assessed_* properties a body names (refused on the implementation endpoint). */
export const assessedPropertiesIn = (body: Record<string, unknown>) => ASSESSED_PROPERTIES.filter((p) => p in body);

const blank = (s: string | null | undefined) => !s || s.trim() === '';

/** Common Control is valid only on SSP control rows: controls, not principles. */
const sspRow = (c: Pick<StoredControl, 'kind'>) => c.kind === 'control';
const essentialEight = (c: Pick<StoredControl, 'essential_eight'>) => c.essential_eight.length > 0;

/** The fields a patch names: one it leaves undefined keeps the current value. */
const definedFields = <T extends object>(patch: T): Partial<T> => Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<T>;

/**
 * Applies an implementation patch. Supplying applicability records an explicit decision even when
 * the value is unchanged; an exclusion, or a choice that differs from the recommendation, needs a
 * comment (seed, controls table). Returns the next control or the 422 pointers.
 */
export function applyImplementation(
  current: StoredControl,
  patch: ImplementationPatch,
  actor: { userId: string; at: string },
): { next: StoredControl; errors: FieldError[] } {
  const { applicability, ...rest } = patch;
  const next: StoredControl = { ...current, ...definedFields(rest) };
  if (patch.applicability_comment !== undefined) next.applicability_comment = blank(patch.applicability_comment) ? null : patch.applicability_comment!.trim();
  if (patch.implementation_status !== undefined) next.implementation_status_origin = 'explicit_user_choice';
  if (applicability) {
    next.applicability = applicability;
    next.applicability_origin = 'explicit_user_choice';
    next.applicability_decided_at = actor.at;
    next.applicability_decided_by = actor.userId;
  }
  const errors: FieldError[] = [];
  const deciding = applicability !== undefined || (patch.applicability_comment !== undefined && next.applicability_origin === 'explicit_user_choice');
  const differs = next.recommendation !== null && next.recommendation.value !== next.applicability;
  if (deciding && (next.applicability === 'n' || differs) && blank(next.applicability_comment)) {
    errors.push({
      pointer: '/applicability_comment',
      code: 'rationale_required',
      detail: next.applicability === 'n' ? 'An exclusion needs a rationale.' : 'A choice that differs from the recommendation needs a rationale.',
    });
  }
  if (next.overall_proposed_outcome === 'common_control' && patch.overall_proposed_outcome !== undefined && !sspRow(next)) {
    errors.push({ pointer: '/overall_proposed_outcome', code: 'not_an_ssp_control_row', detail: 'Common Control applies to SSP control rows only.' });
  }
  if (patch.maturity_proposed_level && !essentialEight(next)) {
    errors.push({ pointer: '/maturity_proposed_level', code: 'not_essential_eight', detail: 'Only Essential Eight controls take a maturity level.' });
  }
  return { next, errors };
}

/** Applies an assessment patch, checking the seed's assessment rules that hold for a draft. */
export function applyAssessment(current: StoredControl, patch: AssessmentPatch): { next: StoredControl; errors: FieldError[] } {
  const { evidence_references, ...rest } = patch;
  const next: StoredControl = { ...current, ...definedFields(rest) };
  // null clears the references: the control keeps an empty list.
  if (evidence_references !== undefined) next.evidence_references = evidence_references ?? [];
  const errors: FieldError[] = [];
  if (patch.overall_assessed_outcome === 'common_control' && !sspRow(next)) {
    errors.push({ pointer: '/overall_assessed_outcome', code: 'not_an_ssp_control_row', detail: 'Common Control applies to SSP control rows only.' });
  }
  if (patch.maturity_assessed_level && !essentialEight(next)) {
    errors.push({ pointer: '/maturity_assessed_level', code: 'not_essential_eight', detail: 'Only Essential Eight controls take a maturity level.' });
  }
  return { next, errors };
}

/** Seed, Assessment rules, as they stand for submission: the pointers still missing. */
export function matrixMissing(c: StoredControl): FieldError[] {
  const missing: FieldError[] = [];
  const outcome = c.overall_assessed_outcome ?? null;
  if (outcome === null || outcome === 'not_assessed')
    missing.push({ pointer: '/overall_assessed_outcome', code: 'required', detail: 'An overall outcome other than not_assessed.' });
  else if (outcome === 'common_control' && !sspRow(c))
    missing.push({ pointer: '/overall_assessed_outcome', code: 'not_an_ssp_control_row', detail: 'Common Control applies to SSP control rows only.' });
  if (blank(c.overall_assessed_rationale) && (c.evidence_references ?? []).length === 0) {
    missing.push({ pointer: '/overall_assessed_rationale', code: 'required', detail: 'An overall rationale or evidence references.' });
  }
  if (outcome && NEEDS_SEVERITY.includes(outcome) && !c.finding_severity)
    missing.push({ pointer: '/finding_severity', code: 'required', detail: `The outcome ${outcome} needs a finding severity.` });
  return missing;
}

/** What an applicable control needs before it goes forward to assessment. */
export function preparationMissing(c: StoredControl): FieldError[] {
  if (c.applicability === 'n') return [];
  const missing: FieldError[] = [];
  if (!c.implementation_status) missing.push({ pointer: '/implementation_status', code: 'required', detail: 'An implementation status.' });
  if (blank(c.implementation_description)) missing.push({ pointer: '/implementation_description', code: 'required', detail: 'An implementation description.' });
  return missing;
}

/** The list's attention flag, as filter[applicability_attention] selects (a conflict is not also a suggestion). */
export function attentionOf(c: Pick<StoredControl, 'applicability' | 'applicability_origin' | 'recommendation'>): 'conflict' | 'suggested_exclusion' | null {
  if (inConflict({ applicability: c.applicability, origin: c.applicability_origin }, c.recommendation)) return 'conflict';
  if (c.recommendation?.value === 'n' && c.applicability === 'y') return 'suggested_exclusion';
  return null;
}
