import { describe, expect, it } from 'vitest';
import { isValid as isUlid } from 'ulid';
import { controlSummaryRows, summaryRowId } from '../../../lib/store/control-summary.js';
import { StoredItemInvalid } from '../../../lib/store/entity.js';
import { keys } from '../../../lib/store/keys.js';

const project = { id: 'P', organisation_id: 'O', system_id: 'S', created_at: '2026-01-01T00:00:00.000Z' };
const summary = {
  ...keys.projectSummary('P'),
  applicable: 3,
  not_applicable: 1,
  impl_implemented: 2,
  impl_not_set: 2,
  revision: 4,
  calculated_at: '2026-02-01T00:00:00.000Z',
};

describe('control summary rows', () => {
  it('gives each dimension and value one stable ULID-shaped ID', () => {
    const id = summaryRowId('workflow_state', 'editing');
    expect(isUlid(id)).toBe(true);
    expect(summaryRowId('workflow_state', 'editing')).toBe(id);
    expect(summaryRowId('workflow_state', 'assessing')).not.toBe(id);
  });

  it('counts each value from its summary counter, zero when the counter is absent', () => {
    const rows = controlSummaryRows(project, summary);
    const count = (dimension: string, value: string) => rows.find((r) => r.data.dimension === dimension && r.data.value === value)?.data.controls;
    expect([count('applicability', 'y'), count('applicability', 'n')]).toEqual([3, 1]);
    expect([count('implementation_status', 'implemented'), count('implementation_status', 'not_set'), count('implementation_status', 'planned')]).toEqual([
      2, 2, 0,
    ]);
    expect(count('assessment_outcome', 'not_assessed')).toBe(0);
  });

  it('versions every row by the summary revision, so that any counted write moves its ETag', () => {
    expect(new Set(controlSummaryRows(project, summary).map((r) => r.version))).toEqual(new Set([5]));
    expect(controlSummaryRows(project, undefined)[0]).toMatchObject({ version: 1, created_at: project.created_at });
  });

  it('refuses a summary whose counter is not a number, naming its key', () => {
    expect(() => controlSummaryRows(project, { ...summary, applicable: '3' })).toThrow(StoredItemInvalid);
    expect(() => controlSummaryRows(project, { ...summary, applicable: '3' })).toThrow('PROJECT#P|SUMMARY');
  });
});
