import type { DocumentControl } from '../../domain/document-model.js';
import { humanise } from './format.js';
import { COLOURS, type PdfLayout } from './layout.js';
import { table } from './table.js';

const SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;
const FAILED = new Set(['ineffective', 'no_visibility', 'not_implemented']);

/** An applicable control the assessment concluded against: a finding. */
export const isFinding = (c: DocumentControl): boolean => c.applicability === 'y' && c.assessment.outcome !== null && FAILED.has(c.assessment.outcome);

/** Findings, most severe first; unrated ones last; catalogue order within a severity. */
export function bySeverity(findings: DocumentControl[]): [string, DocumentControl[]][] {
  const rank = (c: DocumentControl) => {
    const index = SEVERITIES.indexOf(c.assessment.severity as (typeof SEVERITIES)[number]);
    return index < 0 ? SEVERITIES.length : index;
  };
  const groups = new Map<string, DocumentControl[]>();
  for (const finding of [...findings].sort((a, b) => rank(a) - rank(b) || a.position - b.position)) {
    const key = finding.assessment.severity ?? 'unrated';
    groups.set(key, [...(groups.get(key) ?? []), finding]);
  }
  return [...groups.entries()];
}

/**
 * One block per finding: the control, its outcome, the assessor's rationale, the evidence the
 * conclusion cites and, only when the model carries them, the assessor's notes.
 */
export function finding(w: PdfLayout, control: DocumentControl): void {
  const { doc } = w;
  w.ensure(w.lineHeight('bold', 10) * 2 + w.lineHeight('regular', 9.5) * 3);
  w.gap(3);
  const top = doc.y;
  w.font('bold', 10, COLOURS.accent);
  doc.text(control.label, w.left, top, { lineBreak: false });
  w.font('bold', 9, COLOURS.marking);
  w.fixed(
    `${humanise(control.assessment.outcome)} · ${humanise(control.assessment.severity ?? 'unrated')} severity`,
    w.left + 80,
    top + 1,
    w.width - 80,
    'right',
  );
  doc.y = top + w.lineHeight('bold', 10);
  w.paragraph(control.statement, 'italic', 8.5, { colour: COLOURS.muted, after: 3 });
  if (control.essential_eight.length) w.field('Essential Eight', control.essential_eight.join(', '));
  w.field('Implementation status', humanise(control.implementation_status));
  w.field('Rationale', control.assessment.rationale ?? 'No rationale is recorded.');
  if (control.assessment.maturity_level) w.field('Assessed maturity', control.assessment.maturity_level);
  const cited = citedEvidence(control);
  w.field('Evidence', cited.length ? cited.map((e) => e.title).join('; ') : 'None cited.');
  if (control.assessment.assessor_notes) w.field('Assessor notes', control.assessment.assessor_notes);
  w.separator(1);
}

/** The evidence a conclusion cites: its references, resolved against the control's evidence items. */
export function citedEvidence(control: DocumentControl): DocumentControl['evidence'] {
  const cited = new Set(control.assessment.evidence_references);
  return control.evidence.filter((e) => cited.has(e.id));
}

const OUTCOME_ORDER = ['effective', 'common_control', 'ineffective', 'no_visibility', 'not_implemented', 'not_assessed'];

/** The outcomes of the applicable controls as a table of counts, in a fixed order; none counts as not assessed. */
export function outcomesTable(w: PdfLayout, controls: DocumentControl[]): void {
  const applicable = controls.filter((c) => c.applicability === 'y');
  const tally = new Map<string, number>(OUTCOME_ORDER.map((o) => [o, 0]));
  for (const c of applicable) {
    const outcome = c.assessment.outcome ?? 'not_assessed';
    tally.set(outcome, (tally.get(outcome) ?? 0) + 1);
  }
  table(
    w,
    [
      { header: 'Outcome', share: 0.6 },
      { header: 'Controls', share: 0.2 },
      { header: 'Share', share: 0.2 },
    ],
    [...tally.entries()].map(([outcome, n]) => [humanise(outcome), String(n), applicable.length ? `${((100 * n) / applicable.length).toFixed(1)}%` : '—']),
  );
}
