import type { DocumentControl, DocumentEvidence, DocumentModel, DocumentPoamRow, DocumentRiskRow } from '../../domain/document-model.js';
import { isFinding } from './findings.js';
import { formatDate, humanise } from './format.js';

/**
 * What the security assessment report derives from the project where the contract holds no field:
 * the register rows that name a finding, the overall recommendation, the per-finding
 * recommendation, and how each cited item is cited. Pure over the model.
 */

/** Printed where nothing the project holds can fill a piece the report needs: the assessor completes it. */
export const placeholder = (what: string): string => `[To be completed by the assessor: ${what}]`;

/** A register row's control reference (a control ULID or ISM-1234) names this control. */
const names = (reference: string | null, control: DocumentControl): boolean =>
  reference !== null && (reference === control.id || reference.toUpperCase() === control.label.toUpperCase());

export interface Linked {
  risks: DocumentRiskRow[];
  poam: DocumentPoamRow[];
}

/** The risk and POA&M rows that name each control, by control id. */
export function linkedRows(model: DocumentModel): (control: DocumentControl) => Linked {
  return (control) => ({
    risks: model.risks.filter((r) => names(r.related_control, control)),
    poam: model.poam.filter((p) => names(p.related_control, control)),
  });
}

const FINISHED_POAM = new Set(['completed', 'cancelled']);

/**
 * The recommendation to remediate a finding: the open POA&M milestones, else the risk treatment,
 * else a placeholder (the contract has no per-finding recommendation field).
 */
export function recommendationOf(linked: Linked): string {
  const milestones = linked.poam.filter((p) => !FINISHED_POAM.has(p.status) && p.milestone).map((p) => `${p.milestone} (${p.item_id})`);
  if (milestones.length) return milestones.join('; ');
  const treatments = linked.risks.filter((r) => r.treatment).map((r) => `${r.treatment} (${r.risk_id})`);
  if (treatments.length) return treatments.join('; ');
  return placeholder('the recommended remediation of this finding');
}

/** The residual (else inherent) rating of the most severe linked risk, or none. */
export function riskRatingOf(linked: Linked): string | null {
  const ORDER = ['extreme', 'high', 'medium', 'low'];
  const ratings = linked.risks.map((r) => r.residual_rating ?? r.inherent_rating).filter((r): r is string => r !== null);
  ratings.sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b));
  return ratings[0] ?? null;
}

export interface Tally {
  controls: number;
  applicable: DocumentControl[];
  excluded: DocumentControl[];
  effective: DocumentControl[];
  inherited: DocumentControl[];
  findings: DocumentControl[];
  notAssessed: DocumentControl[];
}

/** The controls by what the assessment concluded; an applicable control without a conclusion is not assessed. */
export function tally(controls: DocumentControl[]): Tally {
  const applicable = controls.filter((c) => c.applicability === 'y');
  const outcome = (c: DocumentControl) => c.assessment.outcome ?? 'not_assessed';
  return {
    controls: controls.length,
    applicable,
    excluded: controls.filter((c) => c.applicability !== 'y'),
    effective: applicable.filter((c) => outcome(c) === 'effective'),
    inherited: applicable.filter((c) => outcome(c) === 'common_control' || c.implementation_status === 'ec' || c.provider_guidance.length > 0),
    findings: applicable.filter(isFinding),
    notAssessed: applicable.filter((c) => outcome(c) === 'not_assessed'),
  };
}

/**
 * The overall recommendation to the authorising officer, derived from the outcomes: no
 * recommendation while applicable controls are not assessed; otherwise by the most severe
 * finding whose POA&M is not complete. The assessor confirms or replaces it.
 */
export function overallRecommendation(t: Tally, linked: (c: DocumentControl) => Linked): string {
  if (!t.applicable.length) return 'No control of the project is applicable: there is nothing to recommend on.';
  if (t.notAssessed.length) {
    return `Not determined: ${t.notAssessed.length} of the ${t.applicable.length} applicable controls are not assessed, so the assessment cannot yet support an authorisation decision.`;
  }
  const open = t.findings.filter((c) => !linked(c).poam.some((p) => p.status === 'completed'));
  const serious = open.filter((c) => c.assessment.severity === 'critical' || c.assessment.severity === 'high');
  if (serious.length) {
    return `Authorisation is not recommended until the ${serious.length} critical or high severity findings are remediated, or their residual risks accepted by the authorising officer.`;
  }
  if (open.length) {
    return `Authorisation may be considered with the residual risks of the ${open.length} open medium, low or unrated findings accepted and their remediation tracked in the POA&M.`;
  }
  return 'The assessment found every applicable control effective or remediated: the assessor sees no finding that stands in the way of authorisation.';
}

const WARNING_TEXT = {
  not_ready: 'the item was not ready when the control was assessed',
  unverified: 'the service holds no content to verify',
  live_source: 'a live source, read as it stands',
} as const;

/** How the report cites an item: the digest only when the capture pinned it, and otherwise what the item is. */
export function citationText(e: DocumentEvidence): string {
  const c = e.citation;
  if (c.kind === 'pinned') return c.sha256 ? `Pinned (version ${c.version}), SHA-256 ${c.sha256}` : `Pinned (version ${c.version})`;
  const failed = e.status === 'error' ? `; the file failed (${e.error_code ?? 'unavailable'})` : '';
  if (c.kind === 'acknowledged_warning') return `Not pinned: ${WARNING_TEXT[c.reason]}${failed}; acknowledged by the assessor on ${formatDate(c.captured_at)}`;
  return `Not captured: the control has not been assessed since the item was added${failed}`;
}

export { topicOf } from '../labels.js';

/** What the item is, as a reader names it. */
export const kindText = (e: DocumentEvidence): string => (e.evidence_type ? `${humanise(e.kind)}, ${e.evidence_type}` : humanise(e.kind));
