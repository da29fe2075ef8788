import { describe, expect, it } from 'vitest';
import type { DocumentControl, DocumentEvidence, DocumentModel, DocumentPoamRow, DocumentRiskRow } from '../../../../lib/domain/document-model.js';
import {
  citationText,
  kindText,
  linkedRows,
  overallRecommendation,
  placeholder,
  recommendationOf,
  riskRatingOf,
  tally,
} from '../../../../lib/render/pdf/report-links.js';
import { documentModel } from '../../../support/document-model.js';

const model = documentModel({ limit: 1 });
const base = model.controls[0]!;
const control = (id: string, outcome: string | null, over: Partial<DocumentControl> = {}): DocumentControl => ({
  ...base,
  id,
  label: `ISM-${id}`,
  applicability: 'y',
  implementation_status: 'implemented',
  provider_guidance: [],
  ...over,
  assessment: { ...base.assessment, outcome, severity: null, ...over.assessment },
});
const risk = (over: Partial<DocumentRiskRow>): DocumentRiskRow => ({
  id: 'R',
  risk_id: 'RISK-1',
  title: 'Risk',
  description: null,
  likelihood: null,
  consequence: null,
  inherent_rating: null,
  treatment: null,
  residual_rating: null,
  risk_owner: null,
  related_control: null,
  status: 'open',
  review_due: null,
  ...over,
});
const poam = (over: Partial<DocumentPoamRow>): DocumentPoamRow => ({
  id: 'P',
  item_id: 'POAM-1',
  weakness: 'Weakness',
  related_control: null,
  severity: null,
  milestone: null,
  responsible: null,
  resources_required: null,
  scheduled_completion: null,
  status: 'open',
  completed_on: null,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  ...over,
});
const none = () => ({ risks: [], poam: [] });

describe('linkedRows', () => {
  it('links the rows that name a control by its id or, in any case, its ISM label', () => {
    const rows = {
      ...model,
      risks: [risk({ risk_id: 'A', related_control: 'C1' }), risk({ risk_id: 'B', related_control: 'ism-c1' })],
      poam: [poam({ related_control: 'C2' })],
    } as DocumentModel;
    const linked = linkedRows(rows)(control('C1', 'ineffective'));
    expect([linked.risks.map((r) => r.risk_id), linked.poam]).toEqual([['A', 'B'], []]);
  });
});

describe('recommendationOf', () => {
  it('recommends the open POA&M milestones first', () => {
    const linked = {
      risks: [risk({ treatment: 'Accept' })],
      poam: [poam({ milestone: 'Patch by March', item_id: 'POAM-7' }), poam({ milestone: 'Done', status: 'completed' })],
    };
    expect(recommendationOf(linked)).toBe('Patch by March (POAM-7)');
  });

  it('recommends the risk treatments when no milestone is open', () => {
    expect(recommendationOf({ risks: [risk({ treatment: 'Segment the network', risk_id: 'RISK-3' })], poam: [] })).toBe('Segment the network (RISK-3)');
  });

  it('leaves a placeholder for the assessor otherwise', () => {
    expect(recommendationOf(none())).toBe(placeholder('the recommended remediation of this finding'));
  });
});

describe('riskRatingOf', () => {
  it('answers the most severe rating, residual before inherent', () => {
    expect(riskRatingOf({ risks: [risk({ inherent_rating: 'extreme', residual_rating: 'low' }), risk({ inherent_rating: 'high' })], poam: [] })).toBe('high');
  });

  it('answers none without rated risks', () => {
    expect(riskRatingOf({ risks: [risk({})], poam: [] })).toBeNull();
  });
});

describe('tally', () => {
  it('sorts the controls by what the assessment concluded', () => {
    const t = tally([
      control('A', 'effective'),
      control('B', 'ineffective'),
      control('C', null),
      control('D', 'common_control'),
      control('E', 'effective', { applicability: 'n' }),
    ]);
    expect(
      [t.controls, t.applicable.length, t.excluded, t.effective, t.inherited, t.findings, t.notAssessed].map((v) =>
        Array.isArray(v) ? v.map((c) => c.id) : v,
      ),
    ).toEqual([5, 4, ['E'], ['A'], ['D'], ['B'], ['C']]);
  });

  it('counts as inherited a control with provider guidance, whatever its outcome', () => {
    const guided = control('A', 'effective', { provider_guidance: [{ provider_id: 'V', release_id: 'R', responsibility: 'provider', guidance: 'Hosted.' }] });
    expect(tally([guided]).inherited.map((c) => c.id)).toEqual(['A']);
  });
});

describe('overallRecommendation', () => {
  it('recommends nothing when no control is applicable', () => {
    expect(overallRecommendation(tally([control('A', null, { applicability: 'n' })]), none)).toMatch(/^No control of the project is applicable/);
  });

  it('is not determined while applicable controls are not assessed', () => {
    expect(overallRecommendation(tally([control('A', null), control('B', 'effective')]), none)).toMatch(/^Not determined: 1 of the 2 applicable controls/);
  });

  it('does not recommend authorisation while a critical or high finding is open', () => {
    const t = tally([control('A', 'ineffective', { assessment: { ...base.assessment, outcome: 'ineffective', severity: 'high' } })]);
    expect(overallRecommendation(t, none)).toMatch(/^Authorisation is not recommended until the 1 critical or high/);
  });

  it('lets authorisation be considered with only lesser findings open', () => {
    expect(overallRecommendation(tally([control('A', 'ineffective')]), none)).toMatch(/^Authorisation may be considered with the residual risks of the 1 open/);
  });

  it('sees nothing in the way once every finding has a completed POA&M', () => {
    const t = tally([control('A', 'ineffective', { assessment: { ...base.assessment, outcome: 'ineffective', severity: 'critical' } })]);
    expect(overallRecommendation(t, () => ({ risks: [], poam: [poam({ status: 'completed' })] }))).toMatch(
      /^The assessment found every applicable control effective or remediated/,
    );
  });
});

describe('citationText', () => {
  const item = (over: Partial<DocumentEvidence>): DocumentEvidence => ({
    id: 'E',
    kind: 'file',
    title: 'Config export',
    evidence_type: null,
    status: 'ready',
    error_code: null,
    citation: { kind: 'not_captured' },
    collected_on: null,
    updated_at: '2026-01-01T00:00:00.000Z',
    ...over,
  });

  it('cites a pinned item by version and digest', () => {
    expect(citationText(item({ citation: { kind: 'pinned', captured_at: '2026-02-01T00:00:00Z', version: 3, sha256: 'ab12' } }))).toBe(
      'Pinned (version 3), SHA-256 ab12',
    );
  });

  it('cites a pinned item without content by version only', () => {
    expect(citationText(item({ citation: { kind: 'pinned', captured_at: '2026-02-01T00:00:00Z', version: 1, sha256: null } }))).toBe('Pinned (version 1)');
  });

  it('cites an acknowledged warning with its reason and day, and a failed file with its error', () => {
    const acknowledged = item({
      status: 'error',
      error_code: 'malware_detected',
      citation: { kind: 'acknowledged_warning', captured_at: '2026-02-01T00:00:00Z', reason: 'not_ready' },
    });
    expect(citationText(acknowledged)).toBe(
      'Not pinned: the item was not ready when the control was assessed; the file failed (malware_detected); acknowledged by the assessor on 1\u00a0February\u00a02026',
    );
  });

  it('says an item added after the last assessment was not captured', () => {
    expect(citationText(item({}))).toBe('Not captured: the control has not been assessed since the item was added');
  });
});

describe('kindText', () => {
  it('names the kind, with the evidence type when there is one', () => {
    expect([
      kindText({ kind: 'file', evidence_type: null } as DocumentEvidence),
      kindText({ kind: 'repository_link', evidence_type: 'Policy' } as DocumentEvidence),
    ]).toEqual(['File', 'Repository link, Policy']);
  });
});
