import type { DocumentControl } from '../../domain/document-model.js';
import type { Renderer } from '../renderer.js';
import { pdfRenderer } from './document.js';
import { bySeverity, citedEvidence, finding, isFinding, outcomesTable } from './findings.js';
import { formatDate, humanise } from './format.js';
import { COLOURS } from './layout.js';
import { overview } from './sections.js';
import { table } from './table.js';

/**
 * Security assessment report: the outcomes, the findings by severity, the evidence each conclusion
 * cites and the registers. Assessor notes appear only when the generation options left them in the model.
 */
export const assessmentReportRenderer: Renderer = pdfRenderer(async (w) => {
  const { model } = w;
  const applicable = model.controls.filter((c) => c.applicability === 'y');
  const findings = applicable.filter(isFinding);
  const groups = bySeverity(findings);

  overview(w, 'Assessment context');
  w.heading(1, 'Summary');
  w.paragraph(
    `The assessment covered ${applicable.length} applicable controls of the project's ${model.controls.length}. It concluded on ${
      applicable.filter((c) => c.assessment.outcome && c.assessment.outcome !== 'not_assessed').length
    } and recorded ${findings.length} findings.`,
  );
  w.heading(2, 'Outcomes');
  outcomesTable(w, model.controls);
  w.heading(2, 'Findings by severity');
  table(
    w,
    [
      { header: 'Severity', share: 0.6 },
      { header: 'Findings', share: 0.4 },
    ],
    groups.map(([severity, controls]) => [humanise(severity), String(controls.length)]),
  );

  w.heading(1, 'Findings');
  if (!findings.length) w.paragraph('The assessment recorded no findings.');
  for (const [severity, controls] of groups) {
    w.heading(2, `${humanise(severity)} severity (${controls.length})`);
    for (const control of controls) {
      finding(w, control);
      await w.breathe();
    }
  }

  w.heading(1, 'Evidence cited');
  const concluded = applicable.filter((c) => c.assessment.evidence_references.length > 0);
  if (!concluded.length) w.paragraph('No conclusion cites evidence.');
  else {
    w.paragraph('Each conclusion with the evidence it cites. A file pinned when the control was assessed is identified by its SHA-256 digest.', 'regular', 9);
    table(
      w,
      [
        { header: 'Control', share: 0.11, font: 'bold' },
        { header: 'Outcome', share: 0.13 },
        { header: 'Evidence', share: 0.3 },
        { header: 'Collected', share: 0.12 },
        { header: 'SHA-256', share: 0.34, font: 'mono' },
      ],
      concluded.flatMap(evidenceRows),
    );
  }

  const notes = applicable.filter((c) => c.assessment.assessor_notes && !isFinding(c));
  if (notes.length) {
    w.heading(1, 'Assessor notes');
    w.paragraph('Notes on conclusions other than findings (the notes on findings are shown with each finding).', 'regular', 9, { colour: COLOURS.muted });
    table(
      w,
      [
        { header: 'Control', share: 0.13, font: 'bold' },
        { header: 'Outcome', share: 0.17 },
        { header: 'Notes', share: 0.7 },
      ],
      notes.map((c) => [c.label, humanise(c.assessment.outcome ?? 'not_assessed'), c.assessment.assessor_notes ?? '']),
    );
  }

  w.heading(1, 'Registers');
  if (!model.registers.length) w.paragraph('The project has no registers.');
  else {
    table(
      w,
      [
        { header: 'Register', share: 0.55 },
        { header: 'Owner', share: 0.25 },
        { header: 'Rows', share: 0.2 },
      ],
      model.registers.map((r) => [r.title, humanise(r.owner), String(r.rows)]),
    );
  }
});

/** One row per cited item; a reference to an item the control no longer holds is shown as such. */
function evidenceRows(control: DocumentControl): string[][] {
  const outcome = humanise(control.assessment.outcome ?? 'not_assessed');
  const items = new Map(citedEvidence(control).map((e) => [e.id, e]));
  return control.assessment.evidence_references.map((reference) => {
    const item = items.get(reference);
    if (!item) return [control.label, outcome, `Evidence ${reference} (no longer held by the control)`, '—', '—'];
    const kind = item.evidence_type ? `${humanise(item.kind)}, ${item.evidence_type}` : humanise(item.kind);
    return [control.label, outcome, `${item.title} (${kind})`, item.collected_on ? formatDate(item.collected_on) : '—', item.sha256 ?? 'Not pinned'];
  });
}
