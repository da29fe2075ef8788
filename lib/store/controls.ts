import * as z from 'zod';
import { ORIGINS, type Origin, type PlannedControl, type Recommendation } from '../domain/applicability.js';
import { controlWorkflow } from '../config.js';
import { ALL_STATUSES, attentionOf, type ControlListing, LIST_FIELDS, OUTCOMES, SEVERITIES, type StoredControl } from '../domain/controls.js';
import { PROVIDER_GUIDANCE_FIELDS } from '../domain/control-views.js';
import { STATUS_ORIGINS } from '../domain/provider-effects.js';
import { parseStored, storedSchema } from './entity.js';
import type { StoredProject } from '../domain/projects.js';
import { type ProviderEffect, withProviderEffect } from '../domain/provider-effects.js';
import { attributeEquals, itemAbsent, versionIs } from './conditions.js';
import { digestKeys, filterDigestItems, indexEntries, rangesFor, type ControlIndex } from './control-filters.js';
import { updateIf } from './update.js';
import { gsi1, keys, prefixes } from './keys.js';
import { getMany, keyString, queryAll, type Item } from './read.js';
import { type Backoff, retryUntil } from './retry.js';
import { controlId, controlPositionKey, controlRange } from './projects.js';
import { commit, type WriteItem } from './transact.js';

/**
 * A control as population first writes it: the catalogue entry, its applicability and origin, and
 * what the selected provider releases say of it; nothing decided by people yet.
 */
export function newControlItem(project: Pick<StoredProject, 'id'>, planned: PlannedControl, runId: string, now: Date, effect?: ProviderEffect) {
  const { entry } = planned;
  const id = controlId(project.id, entry.position, entry.id);
  const at = now.toISOString();
  return {
    ...keys.control(project.id, id),
    entity: 'control',
    id,
    project_id: project.id,
    catalogue_id: entry.id,
    label: entry.label,
    kind: entry.kind,
    title: entry.title,
    statement: entry.statement,
    path: entry.path,
    position: entry.position,
    classifications: entry.classifications,
    essential_eight: entry.essential_eight,
    applicability: planned.applicability,
    applicability_origin: planned.origin,
    applicability_comment: null,
    recommendation: planned.recommendation,
    recommendation_at: at,
    ...withProviderEffect({ implementation_status: null }, effect),
    implementation_description: null,
    implementation_summary: null,
    workflow_state: controlWorkflow().initial,
    population_run_id: runId,
    created_at: at,
    updated_at: at,
    version: 1,
    ...attentionKeys(project.id, {
      applicability: planned.applicability,
      applicability_origin: planned.origin,
      recommendation: planned.recommendation,
      position: entry.position,
    }),
  };
}

const recommendationSchema = z.looseObject({ value: z.enum(['y', 'n']), rules: z.array(z.string()), reasons: z.array(z.string()) });

const providerGuidanceSchema = z.looseObject(PROVIDER_GUIDANCE_FIELDS);

/** The fields that place a control in counts, indexes and filters: what the applicability read projects. */
const applicabilityFields = {
  id: z.string(),
  catalogue_id: z.string(),
  label: z.string(),
  title: z.string(),
  essential_eight: z.array(z.string()),
  implementation_status: z.enum(ALL_STATUSES).nullable(),
  implementation_status_origin: z.enum(STATUS_ORIGINS).nullable().optional(),
  provider_guidance: z.array(providerGuidanceSchema).optional(),
  position: z.number(),
  path: z.array(z.string()),
  applicability: z.enum(['y', 'n']),
  applicability_origin: z.enum(ORIGINS),
  recommendation: recommendationSchema.nullable(),
  workflow_state: z.string(),
  overall_assessed_outcome: z.enum(OUTCOMES).nullable().optional(),
  version: z.number(),
};

/** A project's control as stored under keys.control. */
export const controlSchema = storedSchema<StoredControl>()(
  z.looseObject({
    ...applicabilityFields,
    project_id: z.string(),
    kind: z.enum(['control', 'principle']),
    statement: z.string(),
    classifications: z.array(z.string()),
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
);

export const toControl = (item: Item): StoredControl => parseStored(controlSchema, item);

/**
 * The sparse index keys of a control that needs attention: filter[applicability_attention] reads
 * only those controls, in catalogue order, instead of the whole project. Empty when none is needed.
 */
export function attentionKeys(
  projectId: string,
  c: Pick<StoredControl, 'applicability' | 'applicability_origin' | 'recommendation' | 'position'>,
): { GSI1PK?: string; GSI1SK?: string } {
  const attention = attentionOf(c);
  return attention ? { GSI1PK: gsi1.controlAttention(projectId, attention), GSI1SK: controlPositionKey(c.position) } : {};
}

/** A control item as every whole-item write stores it: keys, the record and its attention keys. */
export const controlItem = (c: StoredControl) => ({ ...keys.control(c.project_id, c.id), entity: 'control', ...c, ...attentionKeys(c.project_id, c) });

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

const applicabilitySchema = storedSchema<Omit<ControlApplicability, 'GSI1PK'>>()(z.looseObject(applicabilityFields));

/**
 * A control read through the applicability projection (its keys projected too, so that a refusal
 * names the item). Parsing drops index keys, and the attention index partition is part of the read.
 */
export const toApplicability = (item: Item): ControlApplicability => ({
  ...parseStored(applicabilitySchema, item),
  ...(typeof item.GSI1PK === 'string' ? { GSI1PK: item.GSI1PK } : {}),
});
type Counted = Pick<
  ControlApplicability,
  'applicability' | 'applicability_origin' | 'recommendation' | 'workflow_state' | 'implementation_status' | 'overall_assessed_outcome'
>;

/**
 * The applicability fields of every control of a project: a keys-and-flags read, not the whole
 * records. Recalculation also reads the provider-owned fields (`provider: true`), which can be long.
 */
export async function projectApplicability(projectId: string, read: { provider?: boolean } = {}): Promise<ControlApplicability[]> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
    ExpressionAttributeValues: { ':pk': keys.project(projectId).PK, ':sk': prefixes.control },
    ExpressionAttributeNames: { '#p': 'path', '#pos': 'position', '#v': 'version', '#t': 'title' },
    ProjectionExpression: `PK, SK, id, catalogue_id, label, #t, essential_eight, implementation_status, #pos, #p, applicability, applicability_origin, recommendation, workflow_state, overall_assessed_outcome, #v, GSI1PK${read.provider ? ', implementation_status_origin, provider_guidance' : ''}`,
    // Population summarises, and recalculation fills, right after writes: they must see them.
    ConsistentRead: true,
  });
  return items.map(toApplicability);
}

/** Prefixes of the summary counters by implementation status and by assessment outcome (the control summary register reads them). */
export const SUMMARY_PREFIX = { workflowState: 'state_', implementationStatus: 'impl_', assessmentOutcome: 'outcome_' } as const;
/** The counter values of a control without an implementation status, and without an assessed outcome. */
export const NOT_SET = 'not_set';
export const NOT_ASSESSED = 'not_assessed';

/**
 * The summary counters one control adds (seed: applicable counts controls with applicability y;
 * attention counts as the control list filters it; its workflow state, implementation status and
 * assessed outcome). Flat attributes, so that a delta can ADD to a counter that does not exist yet.
 */
function contribution(c: Counted): Map<string, number> {
  const attention = attentionOf(c);
  return new Map([
    ['controls', 1],
    [c.applicability === 'y' ? 'applicable' : 'not_applicable', 1],
    ...(attention ? [[attention === 'conflict' ? 'conflicts' : 'suggested_exclusions', 1] as [string, number]] : []),
    [`${SUMMARY_PREFIX.workflowState}${c.workflow_state}`, 1],
    [`${SUMMARY_PREFIX.implementationStatus}${c.implementation_status ?? NOT_SET}`, 1],
    [`${SUMMARY_PREFIX.assessmentOutcome}${c.overall_assessed_outcome ?? NOT_ASSESSED}`, 1],
  ]);
}

type ProjectSummary = Record<string, number>;

export function summarise(controls: readonly Counted[]): ProjectSummary {
  const out: ProjectSummary = { controls: 0, applicable: 0, not_applicable: 0, suggested_exclusions: 0, conflicts: 0 };
  for (const c of controls) for (const [k, n] of contribution(c)) out[k] = (out[k] ?? 0) + n;
  return out;
}

/** Counters by prefix (`state_`: controls by workflow state), from a stored summary. */
export function countsBy(summary: Item | undefined, prefix: string): Record<string, number> {
  return Object.fromEntries(
    Object.entries(summary ?? {})
      .filter(([k, v]) => k.startsWith(prefix) && Number(v) > 0)
      .map(([k, v]) => [k.slice(prefix.length), Number(v)]),
  );
}

/**
 * The summary change one control's write makes, in that write's transaction: counters move by
 * the difference, and the revision moves so that a full recount running meanwhile starts over.
 */
export function summaryDelta(projectId: string, before: Counted, after: Counted): WriteItem | undefined {
  const delta = new Map<string, number>();
  for (const [k, n] of contribution(after)) delta.set(k, (delta.get(k) ?? 0) + n);
  for (const [k, n] of contribution(before)) delta.set(k, (delta.get(k) ?? 0) - n);
  const moved = [...delta].filter(([, n]) => n !== 0);
  if (moved.length === 0) return undefined;
  const names: Record<string, string> = { '#rev': 'revision' };
  const values: Record<string, unknown> = { ':one': 1 };
  const adds = moved.map(([k, n], i) => {
    names[`#c${i}`] = k;
    values[`:c${i}`] = n;
    return `#c${i} :c${i}`;
  });
  return { kind: 'update', key: keys.projectSummary(projectId), update: `ADD ${adds.join(', ')}, #rev :one`, names, values };
}

/** The absolute summary, as population and recounts write it. */
export const summaryItem = (projectId: string, controls: readonly Counted[], at: string, revision = 0) => ({
  ...keys.projectSummary(projectId),
  entity: 'project-summary',
  ...summarise(controls),
  revision,
  calculated_at: at,
});

/**
 * The project's control positions in catalogue order (page N of the control list is one key-range
 * Query, not a read of everything before it) and what the text and Essential Eight filters match,
 * compressed into one read unit. Written by population and by every recount.
 */
export const controlIndexItem = (projectId: string, controls: readonly ControlApplicability[], at: string) => ({
  ...keys.projectControlIndex(projectId),
  entity: 'project-control-index',
  entries: indexEntries(controls),
  count: controls.length,
  written_at: at,
});

/** What population and recounts write from the controls as they are: summary, index and filter digest. */
export const projectIndexItems = (projectId: string, controls: readonly ControlApplicability[], at: string) => ({
  summary: summaryItem(projectId, controls, at),
  index: controlIndexItem(projectId, controls, at),
  digest: filterDigestItems(projectId, controls, at),
});

class SummaryMoved extends Error {
  override readonly name = 'SummaryMoved';
}

/**
 * Gives every control the attention keys its values call for (controls written before the index
 * existed, or by hand). Conditional on each control's version: one a person is editing keeps what
 * that edit writes.
 */
async function indexAttention(projectId: string, controls: readonly ControlApplicability[]): Promise<void> {
  for (const c of controls) {
    const wanted = attentionKeys(projectId, c);
    if (wanted.GSI1PK === c.GSI1PK) continue;
    await updateIf(keys.control(projectId, c.id), wanted, versionIs(c.version), wanted.GSI1PK ? [] : ['GSI1PK', 'GSI1SK']);
  }
}

/** A put of a counted item, conditional on the revision it had when the count started. */
function recounted(item: Item & { revision: number }, before: Item | undefined): WriteItem {
  const revision = before ? Number(before.revision ?? 0) : undefined;
  return {
    kind: 'put',
    item: { ...item, revision: (revision ?? 0) + 1 },
    condition: revision === undefined ? itemAbsent() : attributeEquals('revision', revision),
    onConditionFailed: () => new SummaryMoved(),
  };
}

/** A control write that lands during the count moves a revision; the count starts over after a pause. */
const RECOUNT: Backoff = { attempts: 10, baseMs: 50, capMs: 500 };

/**
 * Recounts the summary and rewrites the control index and filter digest from the controls as they
 * are (after a recalculation pass or a fill). Conditional on the summary's and the digest's
 * revisions read first: a control write that lands during the count moves one of them, and the
 * count starts over.
 */
export async function recountProject(projectId: string, now: Date): Promise<void> {
  await retryUntil(
    RECOUNT,
    async (attempt) => {
      const before = await getMany([keys.projectSummary(projectId), ...digestKeys(projectId)]);
      const controls = await projectApplicability(projectId);
      // Attention keys are not counted, so repairing them does not change what this count sees.
      if (attempt === 1) await indexAttention(projectId, controls);
      const { summary, index, digest } = projectIndexItems(projectId, controls, now.toISOString());
      try {
        await commit([...[summary, ...digest].map((item) => recounted(item, before.get(keyString(item)))), { kind: 'put', item: index }]);
        return true;
      } catch (error) {
        if (!(error instanceof SummaryMoved)) throw error;
        return false;
      }
    },
    () => new Error('the project summary kept changing during its recount'),
  );
}

const listingSchema = controlSchema.pick(Object.fromEntries(LIST_FIELDS.map((f) => [f, true])) as { [K in (typeof LIST_FIELDS)[number]]: true });

/** A control read through the list projection (its keys projected too, so that a refusal names the item). */
const toListing = (item: Item): ControlListing => parseStored(listingSchema, item);

const listProjection = {
  ProjectionExpression: ['PK', 'SK', ...LIST_FIELDS.map((_, i) => `#f${i}`)].join(', '),
  ExpressionAttributeNames: Object.fromEntries(LIST_FIELDS.map((f, i) => [`#f${i}`, f])),
};

/** The controls at the wanted positions (position keys of the index), in catalogue order: one round trip of key-range Queries. */
export async function controlsAt(projectId: string, all: readonly string[], wanted: readonly string[]): Promise<ControlListing[]> {
  const pk = keys.project(projectId).PK;
  const reads = rangesFor(all, wanted).map(({ from, to }) => {
    const range = controlRange(projectId, from, to);
    return queryAll({
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': pk, ':from': range.from, ':to': range.to },
      ...listProjection,
    });
  });
  const keep = new Set(wanted);
  return (await Promise.all(reads))
    .flat()
    .map(toListing)
    .filter((c) => keep.has(controlPositionKey(c.position)));
}

/** Page `page` of the project's controls in catalogue order, by the control index: one key-range Query. */
export async function controlsPage(projectId: string, index: ControlIndex, page: { number: number; size: number }): Promise<ControlListing[]> {
  const { positions } = index;
  const from = (page.number - 1) * page.size;
  if (from >= positions.length) return [];
  const range = controlRange(projectId, positions[from]!, positions[Math.min(from + page.size, positions.length) - 1]!);
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': keys.project(projectId).PK, ':from': range.from, ':to': range.to },
    ...listProjection,
  });
  return items.map(toListing);
}

/** The controls that need one kind of attention, in catalogue order, from the sparse index. */
export async function attentionList(projectId: string, attention: 'conflict' | 'suggested_exclusion'): Promise<ControlListing[]> {
  const items = await queryAll({
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ...listProjection,
    ExpressionAttributeValues: { ':pk': gsi1.controlAttention(projectId, attention) },
  });
  return items.map(toListing);
}

/** Every control of the project, in catalogue order, with the list fields only (filtered lists). */
export async function controlList(projectId: string): Promise<ControlListing[]> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
    ExpressionAttributeValues: { ':pk': keys.project(projectId).PK, ':sk': prefixes.control },
    ...listProjection,
  });
  return items.map(toListing);
}
