import { createHash } from 'node:crypto';
import { controlWorkflow } from '../config.js';
import { ALL_STATUSES, OUTCOMES } from '../domain/controls.js';
import type { StoredRegisterRow } from '../domain/register-rows.js';
import { REGISTER_DEFINITION_IDS } from '../domain/registers.js';
import { stateIds } from '../domain/workflow.js';
import { asProjectSummary, NOT_SET, SUMMARY_PREFIX, summaryCount } from './controls.js';
import type { Item } from './read.js';

/**
 * The generated control-summary register: one row per dimension and value, counted from the
 * project's summary item (which every control write moves in its own transaction), so that the
 * register costs one read however many controls the project has.
 */

/** Each dimension's values in order, and the summary counter that counts each. */
function dimensions(): [dimension: string, values: string[], counter: (value: string) => string][] {
  return [
    ['applicability', ['y', 'n'], (v) => (v === 'y' ? 'applicable' : 'not_applicable')],
    ['implementation_status', [...ALL_STATUSES, NOT_SET], (v) => `${SUMMARY_PREFIX.implementationStatus}${v}`],
    ['workflow_state', stateIds(controlWorkflow()), (v) => `${SUMMARY_PREFIX.workflowState}${v}`],
    ['assessment_outcome', [...OUTCOMES], (v) => `${SUMMARY_PREFIX.assessmentOutcome}${v}`],
  ];
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A stable, ULID-shaped row ID per dimension and value, so that a row can be read by its ID like any other. */
export function summaryRowId(dimension: string, value: string): string {
  const digest = createHash('sha256').update(`${dimension}\n${value}`).digest();
  let tail = '';
  for (let i = 0; i < 16; i++) tail += CROCKFORD[digest[i]! % 32];
  return `${REGISTER_DEFINITION_IDS.controlSummary.slice(0, 10)}${tail}`;
}

/** How many rows the register has: one per dimension and value, whatever the controls (not one per control). */
export const controlSummaryRowCount = (): number => dimensions().reduce((n, [, values]) => n + values.length, 0);

/**
 * Every row of the register, in dimension and value order, counted from the summary item (absent
 * before population: every count is 0). The version is the summary's revision, which every counted
 * write moves.
 */
export function controlSummaryRows(
  project: { id: string; organisation_id: string; system_id: string; created_at: string },
  item: Item | undefined,
): StoredRegisterRow[] {
  const summary = asProjectSummary(item);
  const at = summary?.calculated_at ?? project.created_at;
  const version = (summary?.revision ?? 0) + 1;
  return dimensions().flatMap(([dimension, values, counter]) =>
    values.map((value) => ({
      id: summaryRowId(dimension, value),
      definition_id: REGISTER_DEFINITION_IDS.controlSummary,
      owner: 'project' as const,
      organisation_id: project.organisation_id,
      system_id: project.system_id,
      project_id: project.id,
      data: { dimension, value, controls: summaryCount(summary, counter(value)) },
      created_at: at,
      updated_at: at,
      version,
    })),
  );
}
