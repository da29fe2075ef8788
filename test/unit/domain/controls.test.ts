import { describe, expect, it } from 'vitest';
import { applyAssessment, applyImplementation, attentionOf, matrixMissing, preparationMissing } from '../../../lib/domain/controls.js';
import { captureEvidence } from '../../../lib/domain/evidence-capture.js';
import { buildControl } from '../../support/factories.js';

const actor = { userId: 'U', at: '2026-11-22T00:00:00.000Z' };
const pointers = (errors: { pointer: string }[]) => errors.map((e) => e.pointer);
const exclude = { value: 'n' as const, rules: ['no-wireless-networks'], reasons: ['No wireless.'] };

describe('applyImplementation', () => {
  it('records an explicit decision for an unchanged value', () => {
    const { next, errors } = applyImplementation(buildControl(), { applicability: 'y' }, actor);
    expect(errors).toEqual([]);
    expect(next).toMatchObject({ applicability: 'y', applicability_origin: 'explicit_user_choice', applicability_decided_by: 'U' });
  });

  it('needs a rationale for an exclusion', () => {
    expect(pointers(applyImplementation(buildControl(), { applicability: 'n' }, actor).errors)).toEqual(['/applicability_comment']);
    expect(applyImplementation(buildControl(), { applicability: 'n', applicability_comment: 'Inherited.' }, actor).errors).toEqual([]);
  });

  it('needs a rationale to keep a value that differs from the recommendation', () => {
    const recommended = buildControl({ recommendation: exclude, applicability: 'n', applicability_origin: 'initial_recommendation' });
    expect(pointers(applyImplementation(recommended, { applicability: 'y' }, actor).errors)).toEqual(['/applicability_comment']);
  });

  it('leaves a system-set exclusion alone when only other fields change', () => {
    const excluded = buildControl({ applicability: 'n', applicability_origin: 'classification_exclusion' });
    expect(applyImplementation(excluded, { implementation_summary: 'n/a' }, actor).errors).toEqual([]);
  });

  it('stores a blank comment as none', () => {
    expect(applyImplementation(buildControl(), { applicability_comment: '  ' }, actor).next.applicability_comment).toBeNull();
  });
});

describe('applyAssessment', () => {
  it('refuses Common Control on a principle', () => {
    expect(pointers(applyAssessment(buildControl({ kind: 'principle' }), { overall_assessed_outcome: 'common_control' }).errors)).toEqual([
      '/overall_assessed_outcome',
    ]);
    expect(applyAssessment(buildControl(), { overall_assessed_outcome: 'common_control' }).errors).toEqual([]);
  });

  it('clears evidence references with null', () => {
    expect(applyAssessment(buildControl({ evidence_references: ['a'] }), { evidence_references: null }).next.evidence_references).toEqual([]);
  });
});

describe('matrixMissing (seed, Assessment rules)', () => {
  it('counts Not Assessed as incomplete', () => {
    expect(pointers(matrixMissing(buildControl({ overall_assessed_outcome: 'not_assessed', overall_assessed_rationale: 'x' })))).toEqual([
      '/overall_assessed_outcome',
    ]);
  });

  it('takes a rationale or evidence references', () => {
    expect(matrixMissing(buildControl({ overall_assessed_outcome: 'effective', evidence_references: ['Register'] }))).toEqual([]);
    expect(pointers(matrixMissing(buildControl({ overall_assessed_outcome: 'effective', overall_assessed_rationale: ' ' })))).toEqual([
      '/overall_assessed_rationale',
    ]);
  });

  it('needs a severity for ineffective, no visibility and not implemented', () => {
    for (const outcome of ['ineffective', 'no_visibility', 'not_implemented'] as const) {
      expect(pointers(matrixMissing(buildControl({ overall_assessed_outcome: outcome, overall_assessed_rationale: 'x' })))).toEqual(['/finding_severity']);
      expect(matrixMissing(buildControl({ overall_assessed_outcome: outcome, overall_assessed_rationale: 'x', finding_severity: 'low' }))).toEqual([]);
    }
  });
});

describe('preparationMissing', () => {
  it('needs a status and a description of an applicable control, nothing of an excluded one', () => {
    expect(pointers(preparationMissing(buildControl()))).toEqual(['/implementation_status', '/implementation_description']);
    expect(preparationMissing(buildControl({ applicability: 'n' }))).toEqual([]);
  });
});

describe('attentionOf', () => {
  it('tells a conflict from a suggested exclusion', () => {
    expect(attentionOf(buildControl({ recommendation: exclude, applicability_origin: 'explicit_user_choice' }))).toBe('conflict');
    expect(attentionOf(buildControl({ recommendation: exclude, applicability_origin: 'unknown_historical_provenance' }))).toBe('suggested_exclusion');
    expect(attentionOf(buildControl({ recommendation: exclude, applicability: 'n', applicability_origin: 'initial_recommendation' }))).toBeNull();
  });
});

describe('captureEvidence', () => {
  it('captures nothing, and warns of nothing, for a control without evidence', () => {
    expect(captureEvidence([])).toEqual({ versions: [], warnings: [] });
  });

  it('pins ready items and warns of items it cannot capture or verify', () => {
    const capture = captureEvidence([
      { id: 'a', kind: 'upload', title: null, status: 'ready', version: 3, sha256: 'f'.repeat(64) },
      { id: 'b', kind: 'upload', title: null, status: 'pending', version: 1, sha256: null },
      { id: 'c', kind: 'upload', title: null, status: 'ready', version: 1, sha256: null },
      { id: 'd', kind: 'text_reference', title: null, status: 'ready', version: 2, sha256: null },
      { id: 'e', kind: 'external_reference', title: null, status: 'ready', version: 1, sha256: null },
    ]);
    expect(capture.versions).toEqual([
      { evidence_id: 'a', version: 3, sha256: 'f'.repeat(64) },
      { evidence_id: 'd', version: 2, sha256: null },
    ]);
    expect(capture.warnings).toEqual([
      { evidence_id: 'b', reason: 'not_ready' },
      { evidence_id: 'c', reason: 'unverified' },
      { evidence_id: 'e', reason: 'unverified' },
    ]);
  });
});
