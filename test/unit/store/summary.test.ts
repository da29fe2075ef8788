import { describe, expect, it } from 'vitest';
import { summarise, summaryDelta } from '../../../lib/store/controls.js';

const base = {
  applicability: 'y' as const,
  applicability_origin: 'default_inclusion' as const,
  recommendation: null,
  workflow_state: 'editing',
  implementation_status: null,
  overall_assessed_outcome: null,
};

/** The counters a delta moves, by name. */
function movedBy(delta: ReturnType<typeof summaryDelta>): Record<string, unknown> {
  if (delta?.kind !== 'update') return {};
  return Object.fromEntries(
    Object.entries(delta.names)
      .filter(([k]) => k.startsWith('#c'))
      .map(([k, name]) => [name, delta.values[`:${k.slice(1)}`]]),
  );
}

describe('project summary counters', () => {
  it('counts applicability, attention, workflow state, implementation status and assessed outcome', () => {
    const summary = summarise([
      base,
      { ...base, applicability: 'n', applicability_origin: 'classification_exclusion', implementation_status: 'implemented' },
      {
        ...base,
        applicability_origin: 'explicit_user_choice',
        recommendation: { value: 'n', rules: [], reasons: [] },
        implementation_status: 'implemented',
        overall_assessed_outcome: 'effective',
      },
    ]);
    expect(summary).toEqual({
      controls: 3,
      applicable: 2,
      not_applicable: 1,
      suggested_exclusions: 0,
      conflicts: 1,
      state_editing: 3,
      impl_not_set: 1,
      impl_implemented: 2,
      outcome_not_assessed: 2,
      outcome_effective: 1,
    });
  });

  it('moves only the counters a write changes, and the revision with them', () => {
    const delta = summaryDelta('P', base, { ...base, workflow_state: 'ready_for_assessment' });
    expect(delta).toMatchObject({ kind: 'update', update: 'ADD #c0 :c0, #c1 :c1, #rev :one' });
    expect(movedBy(delta)).toEqual({ state_ready_for_assessment: 1, state_editing: -1 });
  });

  it('moves the implementation status counters from not_set to the status an edit sets', () => {
    expect(movedBy(summaryDelta('P', base, { ...base, implementation_status: 'planned' }))).toEqual({ impl_planned: 1, impl_not_set: -1 });
  });

  it('moves the outcome counters from not_assessed to the outcome an assessment concludes', () => {
    expect(movedBy(summaryDelta('P', base, { ...base, overall_assessed_outcome: 'ineffective' }))).toEqual({
      outcome_ineffective: 1,
      outcome_not_assessed: -1,
    });
  });

  it('writes nothing when no counter moves', () => {
    expect(summaryDelta('P', base, { ...base })).toBeUndefined();
  });
});
