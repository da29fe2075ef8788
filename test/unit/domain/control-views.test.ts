import { describe, expect, it } from 'vitest';
import { Control, ControlListItem, controlListItem, controlView } from '../../../lib/domain/control-views.js';
import type { JoinedControl, StoredControl } from '../../../lib/domain/controls.js';
import type { Permission } from '../../../lib/domain/permissions.js';
import type { ProviderGuidance } from '../../../lib/domain/provider-effects.js';
import { buildControl } from '../../support/factories.js';

const joined = (over: Partial<StoredControl> = {}, guidance: ProviderGuidance[] = []): JoinedControl => ({
  ...buildControl(over),
  statement: 'Do the thing.',
  classifications: ['OS', 'P'],
  provider_guidance: guidance,
});

type Caller = Parameters<typeof controlView>[1];
const caller = (over: Partial<Caller> = {}): Caller => ({
  assessment: true,
  permissions: new Set<Permission>(['view-controls', 'view-control-assessment']),
  allowedActions: ['getControl'],
  allowedTransitions: [],
  evidence: [],
  ...over,
});

const guidance = (restricted: boolean): ProviderGuidance => ({
  provider_id: 'V',
  release_id: 'R',
  assertion_id: restricted ? 'A-restricted' : 'A-open',
  restricted,
  responsibility: 'provider',
  implementation_status: 'implemented',
  guidance: 'Enable tenant logging.',
  guidance_truncated: false,
});

const recommendation = (value: 'y' | 'n') => ({ value, rules: ['wireless'], reasons: ['The scope has no wireless networks.'] });

describe('controlListItem', () => {
  it('shows the fields the list filters on, and neither statement nor assessment', () => {
    const c = buildControl({ implementation_status: 'implemented', overall_assessed_outcome: 'effective' });
    expect(controlListItem(c)).toEqual({
      id: c.id,
      catalogue_id: c.catalogue_id,
      label: c.label,
      kind: c.kind,
      title: c.title,
      path: c.path,
      essential_eight: c.essential_eight,
      applicability: 'y',
      applicability_origin: 'default_inclusion',
      applicability_attention: null,
      implementation_status: 'implemented',
      workflow_state: 'editing',
      updated_at: c.updated_at,
    });
  });

  it('flags a person’s choice that the recommendation contradicts as a conflict', () => {
    const c = buildControl({ applicability: 'y', applicability_origin: 'explicit_user_choice', recommendation: recommendation('n') });
    expect(controlListItem(c).applicability_attention).toBe('conflict');
  });

  it('flags an applicable control the recommendation would exclude as a suggested exclusion', () => {
    expect(controlListItem(buildControl({ recommendation: recommendation('n') })).applicability_attention).toBe('suggested_exclusion');
  });

  it('answers what the list item schema describes', () => {
    const item = controlListItem(buildControl({ recommendation: recommendation('n') }));
    expect(ControlListItem().parse(item)).toEqual(item);
  });
});

describe('controlView', () => {
  it('shows the control with its catalogue text, its applicability context and what the caller may do', () => {
    const c = joined({ applicability_decided_at: '2026-02-01T00:00:00.000Z', applicability_decided_by: 'U' });
    const view = controlView(c, caller({ allowedActions: ['getControl', 'updateControlImplementation'] }));
    expect(view).toMatchObject({
      ...controlListItem(c),
      project_id: c.project_id,
      statement: 'Do the thing.',
      classifications: ['OS', 'P'],
      applicability_context: {
        origin: 'default_inclusion',
        recommendation: null,
        recommended_at: null,
        attention: null,
        decided_at: '2026-02-01T00:00:00.000Z',
        decided_by: 'U',
      },
      allowed_actions: ['getControl', 'updateControlImplementation'],
      created_at: c.created_at,
    });
  });

  it('answers null for what a control has not recorded yet', () => {
    expect(controlView(joined(), caller())).toMatchObject({
      applicability_context: { decided_at: null, decided_by: null },
      overall_proposed_outcome: null,
      overall_proposed_rationale: null,
      maturity_proposed_level: null,
      implementation_status_origin: null,
      overall_assessed_outcome: null,
      overall_assessed_rationale: null,
      evidence_references: [],
      finding_severity: null,
      assessor_notes: null,
      maturity_assessed_level: null,
      evidence_snapshot: null,
      last_transition: null,
    });
  });

  it('shows an assessor the assessment and how complete its matrix is, redacting nothing', () => {
    const c = joined({ overall_assessed_outcome: 'effective', overall_assessed_rationale: 'Observed.', assessor_notes: 'Note' });
    expect(controlView(c, caller())).toMatchObject({
      overall_assessed_outcome: 'effective',
      assessor_notes: 'Note',
      assessment_matrix_completeness: { complete: true, missing: [] },
      redacted_fields: [],
    });
  });

  it('names what the assessment matrix still lacks', () => {
    expect(controlView(joined(), caller()).assessment_matrix_completeness).toEqual({
      complete: false,
      missing: [
        { pointer: '/overall_assessed_outcome', detail: 'An overall outcome other than not_assessed.' },
        { pointer: '/overall_assessed_rationale', detail: 'An overall rationale or evidence references.' },
      ],
    });
  });

  it('leaves the assessment out for a caller without the assessment view, naming what it left out', () => {
    const c = joined({ overall_assessed_outcome: 'effective', assessor_notes: 'Note' });
    const view = controlView(c, caller({ assessment: false }));
    const leftOut = Object.keys(controlView(c, caller())).filter((f) => !(f in view));
    expect([leftOut.sort(), [...view.redacted_fields].sort()]).toEqual([
      [
        'assessment_matrix_completeness',
        'assessor_notes',
        'evidence_references',
        'evidence_snapshot',
        'finding_severity',
        'maturity_assessed_level',
        'overall_assessed_outcome',
        'overall_assessed_rationale',
      ],
      leftOut.sort(),
    ]);
  });

  it('shows the last transition without its assessment flag', () => {
    const transition = { id: 'submit', from: 'editing', to: 'submitted', comment: null, by: 'U', at: '2026-02-01T00:00:00.000Z' };
    expect(controlView(joined({ last_transition: { ...transition, assessment: true } }), caller()).last_transition).toEqual(transition);
  });

  it('shows a caller without the assessment view a transition that was no assessment decision', () => {
    const transition = { id: 'submit', from: 'editing', to: 'submitted', comment: 'Ready', by: 'U', at: '2026-02-01T00:00:00.000Z' };
    expect(controlView(joined({ last_transition: { ...transition, assessment: false } }), caller({ assessment: false })).last_transition).toEqual(transition);
  });

  it('hides an assessment decision and its comment from a caller without the assessment view', () => {
    const decision = { id: 'accept', from: 'assessed', to: 'accepted', comment: 'Weak', by: 'A', at: '2026-02-01T00:00:00.000Z', assessment: true };
    const view = controlView(joined({ last_transition: decision }), caller({ assessment: false }));
    expect(['last_transition' in view, view.redacted_fields.includes('last_transition')]).toEqual([false, true]);
  });

  it('names what an applicable control lacks before it goes to assessment', () => {
    expect(controlView(joined(), caller()).assessment_preparation_readiness).toEqual({
      ready: false,
      missing: [
        { pointer: '/implementation_status', detail: 'An implementation status.' },
        { pointer: '/implementation_description', detail: 'An implementation description.' },
      ],
    });
  });

  it('counts a control with its status and description as ready for assessment', () => {
    const c = joined({ implementation_status: 'implemented', implementation_description: 'Group policy.' });
    expect(controlView(c, caller()).assessment_preparation_readiness).toEqual({ ready: true, missing: [] });
  });

  it('leaves out guidance from restricted artefacts for a caller who may not see them', () => {
    const view = controlView(joined({}, [guidance(false), guidance(true)]), caller());
    expect(view.provider_guidance.map((g) => g.assertion_id)).toEqual(['A-open']);
  });

  it('shows guidance from restricted artefacts to a caller with view-restricted-provider-artefacts', () => {
    const permissions = new Set<Permission>(['view-controls', 'view-restricted-provider-artefacts']);
    const view = controlView(joined({}, [guidance(false), guidance(true)]), caller({ permissions }));
    expect(view.provider_guidance.map((g) => g.assertion_id)).toEqual(['A-open', 'A-restricted']);
  });

  it.each([
    ['an assessor', true],
    ['a caller without the assessment view', false],
  ])('answers what the Control schema describes, for %s', (_label, assessment) => {
    const c = joined({ recommendation: recommendation('n'), implementation_status: 'implemented' }, [guidance(false)]);
    const view = controlView(c, caller({ assessment }));
    expect(Control().parse(view)).toEqual(view);
  });
});
