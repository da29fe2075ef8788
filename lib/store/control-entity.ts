import * as z from 'zod';
import { ORIGINS, type Origin, type Recommendation } from '../domain/applicability.js';
import { ALL_STATUSES, type ControlListing, LIST_FIELDS, OUTCOMES, SEVERITIES, type StoredControl } from '../domain/controls.js';
import { PROVIDER_GUIDANCE_FIELDS } from '../domain/control-views.js';
import { STATUS_ORIGINS } from '../domain/provider-effects.js';
import { once } from '../domain/validation.js';
import { parseStored, storedSchema } from './entity.js';
import type { Item } from './read.js';

/**
 * The control's stored item and the two projections its reads use (applicability, list), each
 * parsed with a schema: the list projection's is picked from the item's, so the two cannot part.
 */

const recommendationSchema = once(() => z.looseObject({ value: z.enum(['y', 'n']), rules: z.array(z.string()), reasons: z.array(z.string()) }));

/**
 * A guidance reference, parsed to its own fields: references stored before issue 25 also held the
 * assertion's words (which the data migration strips), and a write of the parsed control must not
 * carry them back.
 */
const guidanceReferenceSchema = once(() =>
  z.object(PROVIDER_GUIDANCE_FIELDS()).pick({ provider_id: true, release_id: true, assertion_id: true, restricted: true }),
);

/** The fields that place a control in counts, indexes and filters: what the applicability read projects. */
const applicabilityFields = once(() => ({
  id: z.string(),
  catalogue_id: z.string(),
  label: z.string(),
  title: z.string(),
  essential_eight: z.array(z.string()),
  implementation_status: z.enum(ALL_STATUSES).nullable(),
  implementation_status_origin: z.enum(STATUS_ORIGINS).nullable().optional(),
  provider_guidance: z.array(guidanceReferenceSchema()).optional(),
  position: z.number(),
  path: z.array(z.string()),
  applicability: z.enum(['y', 'n']),
  applicability_origin: z.enum(ORIGINS),
  recommendation: recommendationSchema().nullable(),
  workflow_state: z.string(),
  overall_assessed_outcome: z.enum(OUTCOMES).nullable().optional(),
  version: z.number(),
}));

/** A project's control as stored under keys.control. */
export const controlSchema = once(() =>
  storedSchema<StoredControl>()(
    z.looseObject({
      ...applicabilityFields(),
      project_id: z.string(),
      kind: z.enum(['control', 'principle']),
      applicability_comment: z.string().nullable(),
      applicability_decided_at: z.string().nullable().optional(),
      applicability_decided_by: z.string().nullable().optional(),
      recommendation_at: z.string().nullable(),
      implementation_description: z.string().nullable(),
      implementation_summary: z.string().nullable(),
      overall_proposed_outcome: z.enum(OUTCOMES).nullable().optional(),
      overall_proposed_rationale: z.string().nullable().optional(),
      maturity_proposed_level: z.string().nullable().optional(),
      overall_assessed_rationale: z.string().nullable().optional(),
      evidence_references: z.array(z.string()).optional(),
      finding_severity: z.enum(SEVERITIES).nullable().optional(),
      assessor_notes: z.string().nullable().optional(),
      maturity_assessed_level: z.string().nullable().optional(),
      last_transition: z
        .looseObject({
          id: z.string(),
          from: z.string(),
          to: z.string(),
          comment: z.string().nullable(),
          by: z.string(),
          at: z.string(),
          assessment: z.boolean(),
        })
        .nullable()
        .optional(),
      evidence_snapshot: z
        .looseObject({
          captured_at: z.string(),
          versions: z.array(z.looseObject({ evidence_id: z.string(), version: z.number(), sha256: z.string().nullable() })),
          acknowledged_warnings: z.array(z.string()),
        })
        .nullable()
        .optional(),
      approval_task_id: z.string().nullable().optional(),
      created_at: z.string(),
      updated_at: z.string(),
    }),
  ),
);

/** The catalogue's attributes that controls stored before issue 25 copied, and the data migration strips (lib/migrations). */
export const COPIED_CATALOGUE_ATTRIBUTES = ['statement', 'classifications'] as const;

/** A stored control's guidance references with every attribute they hold, which controlSchema reads to their own fields. */
const heldGuidanceSchema = once(() => z.looseObject({ provider_guidance: z.array(z.record(z.string(), z.unknown())).optional() }));

/** Whether a stored control still holds copies of its catalogue text or of its providers' words. */
export function holdsCopiedText(item: Item): boolean {
  if (COPIED_CATALOGUE_ATTRIBUTES.some((a) => a in item)) return true;
  const named = new Set(Object.keys(guidanceReferenceSchema().shape));
  return (parseStored(heldGuidanceSchema(), item).provider_guidance ?? []).some((r) => Object.keys(r).some((k) => !named.has(k)));
}

/** A stored control, without the copies of catalogue text an older item holds: a write of it never carries them back. */
export function toControl(item: Item): StoredControl {
  const { statement: _statement, classifications: _classifications, ...control } = parseStored(controlSchema(), item);
  return control;
}

/** The fields that place a control in the project summary, the control index and the filter digest. */
export interface ControlApplicability {
  id: string;
  catalogue_id: string;
  label: string;
  title: string;
  essential_eight: string[];
  implementation_status: StoredControl['implementation_status'];
  implementation_status_origin?: StoredControl['implementation_status_origin'];
  provider_guidance?: StoredControl['provider_guidance'];
  position: number;
  path: string[];
  applicability: 'y' | 'n';
  applicability_origin: Origin;
  recommendation: Recommendation | null;
  workflow_state: string;
  overall_assessed_outcome?: StoredControl['overall_assessed_outcome'];
  version: number;
  GSI1PK?: string;
}

const applicabilitySchema = once(() => storedSchema<Omit<ControlApplicability, 'GSI1PK'>>()(z.looseObject(applicabilityFields())));

/**
 * A control read through the applicability projection (its keys projected too, so that a refusal
 * names the item). Parsing drops index keys, and the attention index partition is part of the read.
 */
export const toApplicability = (item: Item): ControlApplicability => ({
  ...parseStored(applicabilitySchema(), item),
  ...(typeof item.GSI1PK === 'string' ? { GSI1PK: item.GSI1PK } : {}),
});

const listingSchema = once(() => controlSchema().pick(Object.fromEntries(LIST_FIELDS.map((f) => [f, true])) as { [K in (typeof LIST_FIELDS)[number]]: true }));

/** A control read through the list projection (its keys projected too, so that a refusal names the item). */
export const toListing = (item: Item): ControlListing => parseStored(listingSchema(), item);
