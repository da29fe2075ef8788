import type { PlannedControl } from '../domain/applicability.js';
import { controlWorkflow } from '../config.js';
import { attentionOf, type ControlListing, LIST_FIELDS, type StoredControl } from '../domain/controls.js';
import { COPIED_CATALOGUE_ATTRIBUTES, type ControlApplicability, holdsCopiedText, toApplicability, toControl, toListing } from './control-entity.js';
import type { StoredProject } from '../domain/projects.js';
import { type ProviderEffect, withProviderEffect } from '../domain/provider-effects.js';
import { attributeEquals, itemAbsent, versionIs } from './conditions.js';
import { digestKeys, filterDigestItems, indexEntries, rangesFor, type ControlIndex } from './control-filters.js';
import { updateIf } from './update.js';
import * as z from 'zod';
import { once } from '../domain/validation.js';
import { revisionOf } from './counters.js';
import { parseFound } from './entity.js';
import { gsi1, keys, prefixes } from './keys.js';
import { getMany, getOne, keyString, queryAll, type Item } from './read.js';
import { type Backoff, retryUntil } from './retry.js';
import { controlId, controlPositionKey, controlRange } from './projects.js';
import { commit, type WriteItem } from './transact.js';

/**
 * A control as population first writes it: what places its catalogue entry (not the entry's text,
 * which reads join), its applicability and origin, and which assertions of the selected provider
 * releases speak of it; nothing decided by people yet.
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
    path: entry.path,
    position: entry.position,
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

/**
 * A project's summary as stored under keys.projectSummary: its counters, the revision every
 * counted write moves, and when it was last counted in full.
 */
const projectSummarySchema = once(() => z.object({ revision: z.number().optional(), calculated_at: z.string().optional() }).catchall(z.number()));
export type StoredSummary = z.output<ReturnType<typeof projectSummarySchema>>;

/** The summary; undefined before population wrote one. */
export const asProjectSummary = (item: Item | undefined): StoredSummary | undefined => parseFound(projectSummarySchema(), item);

/** One counter of the summary: 0 before population, or before a control first moved it. */
export const summaryCount = (summary: StoredSummary | undefined, name: string): number => summary?.[name] ?? 0;

/** Counters by prefix (`state_`: controls by workflow state), from a stored summary. */
export function countsBy(summary: StoredSummary | undefined, prefix: string): Record<string, number> {
  return Object.fromEntries(
    Object.entries(summary ?? {}).flatMap(([k, v]) => (k.startsWith(prefix) && typeof v === 'number' && v > 0 ? [[k.slice(prefix.length), v] as const] : [])),
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
  const revision = before ? revisionOf(before) : undefined;
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

/**
 * Rewrites a control stored before issue 25 without its copies of catalogue text and provider
 * words (reads join them). Conditional on the version read, and without moving it: the control's
 * answer, so its ETag, stays the same. An edit that lands first writes the control whole, from a
 * read that leaves the copies behind; the control is read again and checked. True when it wrote.
 */
export async function stripCopiedText(item: Item): Promise<boolean> {
  let current: Item | undefined = item;
  for (let attempt = 0; current && holdsCopiedText(current) && attempt < 5; attempt++) {
    const control = toControl(current);
    const references = control.provider_guidance ? { provider_guidance: control.provider_guidance } : {};
    if (await updateIf({ PK: current.PK, SK: current.SK }, references, versionIs(control.version), COPIED_CATALOGUE_ATTRIBUTES)) return true;
    current = await getOne({ PK: current.PK, SK: current.SK });
  }
  return false;
}
