import { describe, expect, it } from 'vitest';
import { summarise, summaryDelta } from '../../../lib/store/controls.js';

const base = { applicability: 'y' as const, applicability_origin: 'default_inclusion' as const, recommendation: null, workflow_state: 'editing' };

describe('project summary counters', () => {
  it('counts applicability, attention and workflow state', () => {
    const summary = summarise([
      base,
      { ...base, applicability: 'n', applicability_origin: 'classification_exclusion' },
      { ...base, applicability_origin: 'explicit_user_choice', recommendation: { value: 'n', rules: [], reasons: [] } },
    ]);
    expect(summary).toEqual({
      controls: 3,
      applicable: 2,
      not_applicable: 1,
      suggested_exclusions: 0,
      conflicts: 1,
      state_editing: 3,
    });
  });

  it('moves only the counters a write changes, and the revision with them', () => {
    const delta = summaryDelta('P', base, { ...base, workflow_state: 'ready_for_assessment' });
    expect(delta).toMatchObject({ kind: 'update', update: 'ADD #c0 :c0, #c1 :c1, #rev :one' });
    const moved =
      delta!.kind === 'update'
        ? Object.fromEntries(
            Object.entries(delta!.names)
              .filter(([k]) => k.startsWith('#c'))
              .map(([k, name]) => [name, delta!.values[`:${k.slice(1)}`]]),
          )
        : {};
    expect(moved).toEqual({ state_ready_for_assessment: 1, state_editing: -1 });
  });

  it('writes nothing when no counter moves', () => {
    expect(summaryDelta('P', base, { ...base })).toBeUndefined();
  });
});
