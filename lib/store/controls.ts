import { inConflict, type Origin, type PlannedControl } from '../catalogue/applicability.js';
import type { StoredProject } from '../domain/projects.js';
import { keys, prefixes } from './keys.js';
import { queryAll } from './read.js';
import { controlId } from './projects.js';

/** A control as population first writes it: the catalogue entry, its applicability and origin, nothing decided yet. */
export function newControlItem(project: Pick<StoredProject, 'id'>, planned: PlannedControl, runId: string, now: Date) {
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
    implementation_status: null,
    implementation_description: null,
    implementation_summary: null,
    workflow_state: 'editing',
    population_run_id: runId,
    created_at: at,
    updated_at: at,
    version: 1,
  };
}

export interface ControlApplicability {
  id: string;
  catalogue_id: string;
  position: number;
  path: string[];
  applicability: 'y' | 'n';
  applicability_origin: string;
  recommendation: { value: 'y' | 'n'; rules: string[]; reasons: string[] } | null;
  version: number;
}

/** The applicability fields of every control of a project: a keys-and-flags read, not the whole records. */
export async function projectApplicability(projectId: string): Promise<ControlApplicability[]> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
    ExpressionAttributeValues: { ':pk': keys.project(projectId).PK, ':sk': prefixes.control },
    ExpressionAttributeNames: { '#p': 'path', '#pos': 'position', '#v': 'version' },
    ProjectionExpression: 'id, catalogue_id, #pos, #p, applicability, applicability_origin, recommendation, #v',
    // Population summarises, and recalculation fills, right after writes: they must see them.
    ConsistentRead: true,
  });
  return items as unknown as ControlApplicability[];
}

interface ApplicabilitySummary {
  controls: number;
  applicable: number;
  not_applicable: number;
  suggested_exclusions: number;
  conflicts: number;
  by_origin: Record<string, number>;
}

/** Counts for health (seed: applicable counts controls with applicability y; attention counts as the control list filters them). */
export function summarise(controls: readonly ControlApplicability[]): ApplicabilitySummary {
  const by_origin: Record<string, number> = {};
  let applicable = 0;
  let suggested = 0;
  let conflicts = 0;
  for (const c of controls) {
    if (c.applicability === 'y') applicable++;
    by_origin[c.applicability_origin] = (by_origin[c.applicability_origin] ?? 0) + 1;
    const decided = { applicability: c.applicability, origin: c.applicability_origin as Origin };
    // A choice against the recommendation is one issue (a conflict), not also a suggestion.
    if (inConflict(decided, c.recommendation)) conflicts++;
    else if (c.recommendation?.value === 'n' && c.applicability === 'y') suggested++;
  }
  return { controls: controls.length, applicable, not_applicable: controls.length - applicable, suggested_exclusions: suggested, conflicts, by_origin };
}
