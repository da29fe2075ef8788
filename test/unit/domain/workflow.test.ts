import { describe, expect, it } from 'vitest';
import { permissionsOf } from '../../../lib/domain/permissions.js';
import { availableTransitions, configuredFrom, DEFAULT_SETTINGS, DEFAULT_WORKFLOW, parseWorkflow } from '../../../lib/domain/workflow.js';

const everything = { editable: true, mutation: true, permissions: new Set(permissionsOf('project')) };
const ids = (ts: { id: string }[]) => ts.map((t) => t.id);

describe('the default control workflow', () => {
  it('is a workflow the configuration schema accepts unchanged', () => {
    expect(parseWorkflow(structuredClone(DEFAULT_WORKFLOW))).toEqual(DEFAULT_WORKFLOW);
  });

  it('has the states and the eleven transitions of spec/operations.md', () => {
    expect(DEFAULT_WORKFLOW.states.map((s) => s.id)).toEqual([
      'editing',
      'approving_edit',
      'ready_for_assessment',
      'assessing',
      'approving_assessment',
      'assessed',
    ]);
    expect(DEFAULT_WORKFLOW.transitions).toHaveLength(11);
  });

  it('requires a comment on exactly the four approval and rejection decisions', () => {
    expect(ids(DEFAULT_WORKFLOW.transitions.filter((t) => t.comment === 'required')).sort()).toEqual([
      'approving_assessment_to_assessed',
      'approving_assessment_to_assessing',
      'approving_edit_to_editing',
      'approving_edit_to_ready_for_assessment',
    ]);
  });

  it('offers one submit path from editing and from assessing, by the approval settings', () => {
    expect(ids(configuredFrom(DEFAULT_WORKFLOW, 'editing', DEFAULT_SETTINGS))).toEqual(['editing_to_ready_for_assessment']);
    expect(ids(configuredFrom(DEFAULT_WORKFLOW, 'editing', { ...DEFAULT_SETTINGS, edit_approval: true }))).toEqual(['editing_to_approving_edit']);
    expect(ids(configuredFrom(DEFAULT_WORKFLOW, 'assessing', DEFAULT_SETTINGS))).toEqual(['assessing_to_assessed']);
    expect(ids(configuredFrom(DEFAULT_WORKFLOW, 'assessing', { ...DEFAULT_SETTINGS, assessment_approval: true }))).toEqual([
      'assessing_to_approving_assessment',
    ]);
  });

  it('captures evidence on every transition that reaches assessed', () => {
    for (const t of DEFAULT_WORKFLOW.transitions.filter((t) => t.to === 'assessed')) expect(t.gates, t.id).toContain('evidence_captured');
  });
});

describe('availableTransitions', () => {
  it('offers a transition only with every permission it names', () => {
    const implementer = { ...everything, permissions: new Set(['view-controls', 'edit-control-implementation'] as const) };
    expect(ids(availableTransitions(DEFAULT_WORKFLOW, 'ready_for_assessment', DEFAULT_SETTINGS, implementer))).toEqual(['ready_for_assessment_to_editing']);
    expect(ids(availableTransitions(DEFAULT_WORKFLOW, 'ready_for_assessment', DEFAULT_SETTINGS, everything))).toEqual([
      'ready_for_assessment_to_assessing',
      'ready_for_assessment_to_editing',
    ]);
  });

  it('offers nothing to a read-only credential or on a project that cannot change', () => {
    expect(availableTransitions(DEFAULT_WORKFLOW, 'editing', DEFAULT_SETTINGS, { ...everything, mutation: false })).toEqual([]);
    expect(availableTransitions(DEFAULT_WORKFLOW, 'editing', DEFAULT_SETTINGS, { ...everything, editable: false })).toEqual([]);
  });
});

describe('parseWorkflow', () => {
  const base = {
    initial: 'open',
    states: [
      { id: 'open', edits: ['implementation'] },
      { id: 'closed', edits: [] },
    ],
    transitions: [{ id: 'close', from: 'open', to: 'closed', permissions: ['edit-control-implementation'], comment: 'rejected', gates: [] }],
  };

  it('accepts a configuration of its own', () => {
    expect(ids(configuredFrom(parseWorkflow(base), 'open', DEFAULT_SETTINGS))).toEqual(['close']);
  });

  it('refuses a transition to a state that does not exist', () => {
    expect(() => parseWorkflow({ ...base, transitions: [{ ...base.transitions[0], to: 'gone' }] })).toThrow(/unknown state/);
  });

  it('refuses duplicate transition IDs and an unknown permission', () => {
    expect(() => parseWorkflow({ ...base, transitions: [base.transitions[0], base.transitions[0]] })).toThrow(/unique/);
    expect(() => parseWorkflow({ ...base, transitions: [{ ...base.transitions[0], permissions: ['approve-everything'] }] })).toThrow();
  });
});
