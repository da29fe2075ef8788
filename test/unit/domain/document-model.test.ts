import { describe, expect, it } from 'vitest';
import type { JoinedControl, StoredControl } from '../../../lib/domain/controls.js';
import { DOCUMENT_CONTROL_FIELDS, documentControl, documentEvidence } from '../../../lib/domain/document-model.js';
import type { ProviderGuidance } from '../../../lib/domain/provider-effects.js';
import { buildCatalogueEntry, buildControl, buildEvidence } from '../../support/factories.js';

const joined = (over: Partial<StoredControl> = {}, guidance: ProviderGuidance[] = []): JoinedControl => ({
  ...buildControl(over),
  statement: 'Do the thing.',
  classifications: ['OS', 'P'],
  provider_guidance: guidance,
});

const SHOW_ALL = { show_implementation_notes: true, show_assessor_notes: true };
const SHOW_NONE = { show_implementation_notes: false, show_assessor_notes: false };

const noted = () =>
  joined({
    overall_proposed_outcome: 'effective',
    overall_proposed_rationale: 'We think so.',
    maturity_proposed_level: 'ML2',
    overall_assessed_outcome: 'ineffective',
    overall_assessed_rationale: 'Observed otherwise.',
    finding_severity: 'high',
    maturity_assessed_level: 'ML1',
    evidence_references: ['E1'],
    assessor_notes: 'Interviewed the administrator.',
  });

const guidance = (over: Partial<ProviderGuidance>): ProviderGuidance => ({
  provider_id: 'V',
  release_id: 'R',
  assertion_id: 'A',
  restricted: false,
  responsibility: 'shared',
  implementation_status: 'implemented',
  guidance: 'Enable tenant logging.',
  guidance_truncated: false,
  ...over,
});

describe('documentControl', () => {
  it('shows the control’s identity, catalogue text, applicability and implementation as the project holds them', () => {
    const c = joined({ implementation_status: 'implemented', implementation_summary: 'Managed.', implementation_description: 'Group policy.' });
    const shown = documentControl(c, [], SHOW_ALL, undefined);
    expect(Object.fromEntries(DOCUMENT_CONTROL_FIELDS.map((f) => [f, shown[f]]))).toEqual(Object.fromEntries(DOCUMENT_CONTROL_FIELDS.map((f) => [f, c[f]])));
  });

  it('shows nothing else of the stored control', () => {
    const shown = documentControl(noted(), [], SHOW_ALL, undefined);
    const derived = ['revision', 'updated', 'implementation_notes', 'assessment', 'evidence', 'provider_guidance', 'recommendation'];
    expect(Object.keys(shown).sort()).toEqual([...DOCUMENT_CONTROL_FIELDS, ...derived].sort());
  });

  it('takes the revision and last update from the catalogue entry', () => {
    const shown = documentControl(joined(), [], SHOW_ALL, buildCatalogueEntry({ revision: 4, updated: 'Dec-25' }));
    expect([shown.revision, shown.updated]).toEqual([4, 'Dec-25']);
  });

  it('answers null revision and update without a catalogue entry', () => {
    const shown = documentControl(joined(), [], SHOW_ALL, undefined);
    expect([shown.revision, shown.updated]).toEqual([null, null]);
  });

  it('shows the implementer’s own claims when the options show implementation notes', () => {
    expect(documentControl(noted(), [], SHOW_ALL, undefined).implementation_notes).toEqual({
      proposed_outcome: 'effective',
      proposed_rationale: 'We think so.',
      proposed_maturity: 'ML2',
    });
  });

  it('leaves the implementer’s claims out when the options do not show them', () => {
    expect(documentControl(noted(), [], SHOW_NONE, undefined).implementation_notes).toBeNull();
  });

  it('shows the assessment with the assessor’s notes when the options show them', () => {
    expect(documentControl(noted(), [], SHOW_ALL, undefined).assessment).toEqual({
      outcome: 'ineffective',
      rationale: 'Observed otherwise.',
      severity: 'high',
      maturity_level: 'ML1',
      evidence_references: ['E1'],
      assessor_notes: 'Interviewed the administrator.',
    });
  });

  it('shows the assessment without the assessor’s notes when the options leave them out', () => {
    const { assessment } = documentControl(noted(), [], SHOW_NONE, undefined);
    expect([assessment.outcome, assessment.assessor_notes]).toEqual(['ineffective', null]);
  });

  it('answers an assessment not yet made as nulls and no references', () => {
    expect(documentControl(joined(), [], SHOW_ALL, undefined).assessment).toEqual({
      outcome: null,
      rationale: null,
      severity: null,
      maturity_level: null,
      evidence_references: [],
      assessor_notes: null,
    });
  });

  it('shows the provider guidance of open artefacts only, and only guidance that says something', () => {
    const c = joined({}, [guidance({ assertion_id: 'open' }), guidance({ assertion_id: 'restricted', restricted: true }), guidance({ guidance: null })]);
    expect(documentControl(c, [], SHOW_ALL, undefined).provider_guidance).toEqual([
      { provider_id: 'V', release_id: 'R', responsibility: 'shared', guidance: 'Enable tenant logging.' },
    ]);
  });

  it('shows the recommendation’s value and reasons, not the rules that made it', () => {
    const c = joined({ recommendation: { value: 'n', rules: ['wireless'], reasons: ['No wireless networks.'] } });
    expect(documentControl(c, [], SHOW_ALL, undefined).recommendation).toEqual({ value: 'n', reasons: ['No wireless networks.'] });
  });

  it('cites each evidence item of the control against the control’s capture', () => {
    const item = buildEvidence({ kind: 'upload', file_status: 'ready', sha256: 'b'.repeat(64) });
    const snapshot = {
      captured_at: '2026-02-01T00:00:00.000Z',
      versions: [{ evidence_id: item.id, version: 2, sha256: 'a'.repeat(64) }],
      acknowledged_warnings: [],
    };
    expect(documentControl(joined({ evidence_snapshot: snapshot }), [item], SHOW_ALL, undefined).evidence.map((e) => e.citation)).toEqual([
      { kind: 'pinned', captured_at: '2026-02-01T00:00:00.000Z', version: 2, sha256: 'a'.repeat(64) },
    ]);
  });
});

describe('documentEvidence', () => {
  it('shows the item’s identity, metadata and status, not cited without a capture', () => {
    const item = buildEvidence({ evidence_type: 'configuration export', collected_on: '2026-01-15' });
    expect(documentEvidence(item, null)).toEqual({
      id: item.id,
      kind: 'text_reference',
      title: 'Evidence',
      evidence_type: 'configuration export',
      status: 'ready',
      error_code: null,
      citation: { kind: 'not_captured' },
      collected_on: '2026-01-15',
      updated_at: item.updated_at,
    });
  });

  it('takes an upload’s status from its file', () => {
    expect(documentEvidence(buildEvidence({ kind: 'upload', status: 'ready', file_status: 'quarantine' }), null).status).toBe('pending');
  });

  it('names why a file item failed', () => {
    const shown = documentEvidence(buildEvidence({ kind: 'upload', file_status: 'error', error_code: 'malware_detected' }), null);
    expect([shown.status, shown.error_code]).toEqual(['error', 'malware_detected']);
  });

  it('calls a failure without a recorded reason unavailable', () => {
    expect(documentEvidence(buildEvidence({ kind: 'upload', file_status: 'error', error_code: null }), null).error_code).toBe('unavailable');
  });
});
