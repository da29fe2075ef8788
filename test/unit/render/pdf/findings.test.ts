import { describe, expect, it } from 'vitest';
import type { DocumentControl } from '../../../../lib/domain/document-model.js';
import { bySeverity, citedEvidence, isFinding } from '../../../../lib/render/pdf/findings.js';
import { documentModel } from '../../../support/document-model.js';

const base = documentModel({ limit: 1 }).controls[0]!;
const control = (position: number, assessment: Partial<DocumentControl['assessment']>, over: Partial<DocumentControl> = {}): DocumentControl => ({
  ...base,
  id: `C${position}`,
  label: `ISM-${position}`,
  position,
  applicability: 'y',
  ...over,
  assessment: { ...base.assessment, outcome: 'ineffective', severity: null, evidence_references: [], ...assessment },
});

describe('isFinding', () => {
  it.each(['ineffective', 'no_visibility', 'not_implemented'])('takes an applicable control concluded %s as a finding', (outcome) => {
    expect(isFinding(control(1, { outcome }))).toBe(true);
  });

  it.each(['effective', 'common_control', null])('takes an applicable control concluded %s as none', (outcome) => {
    expect(isFinding(control(1, { outcome }))).toBe(false);
  });

  it('takes a control that is not applicable as none, whatever its outcome', () => {
    expect(isFinding(control(1, { outcome: 'ineffective' }, { applicability: 'n' }))).toBe(false);
  });
});

describe('bySeverity', () => {
  it('groups findings most severe first, unrated last, in catalogue order within a group', () => {
    const groups = bySeverity([
      control(4, { severity: 'low' }),
      control(3, { severity: null }),
      control(2, { severity: 'critical' }),
      control(5, { severity: 'low' }),
      control(1, { severity: 'low' }),
    ]);
    expect(groups.map(([severity, findings]) => [severity, findings.map((f) => f.position)])).toEqual([
      ['critical', [2]],
      ['low', [1, 4, 5]],
      ['unrated', [3]],
    ]);
  });
});

describe('citedEvidence', () => {
  it("answers the control's evidence items the conclusion references, in the control's order", () => {
    const [first, second] = [0, 1].map((i) => ({ ...base.evidence[0]!, id: `E${i}`, title: `Item ${i}` }));
    const cited = citedEvidence(control(1, { evidence_references: ['E1', 'E0', 'GONE'] }, { evidence: [first!, second!] }));
    expect(cited.map((e) => e.id)).toEqual(['E0', 'E1']);
  });
});
