import type { DocumentControl, DocumentModel } from '../../domain/document-model.js';
import { labelOf, ORIGIN_LABELS, OUTCOME_LABELS, STATUS_LABELS, WORKFLOW_LABELS } from '../labels.js';
import type { Renderer } from '../renderer.js';
import { pdfRenderer } from './document.js';
import { bySeverity, citedEvidence, isFinding, outcomesTable } from './findings.js';
import { formatDate, humanise } from './format.js';
import { COLOURS, type PdfLayout } from './layout.js';
import {
  citationText,
  kindText,
  type Linked,
  linkedRows,
  overallRecommendation,
  placeholder,
  recommendationOf,
  riskRatingOf,
  type Tally,
  tally,
  topicOf,
} from './report-links.js';
import { byPath, recordTable, signatures } from './sections.js';
import { DATE_SHARE, table } from './table.js';

/**
 * Security assessment report, in the shape of an IRAP report to the authorising officer: executive
 * summary and recommendation, scope, methodology, assessor, compliance by guideline, the findings
 * with their risks and POA&M rows, effective and inherited controls, exclusions, the evidence with
 * how each item is cited, and the sign-off. Assessor notes appear only when the model carries them.
 */
export const assessmentReportRenderer: Renderer = pdfRenderer(async (w) => {
  const { model } = w;
  const t = tally(model.controls);
  const linked = linkedRows(model);

  executiveSummary(w, t, linked);
  scopeAndBoundary(w);
  methodology(w, t);
  assessorDetails(w);
  complianceSummary(w, model.controls);

  w.heading(1, 'Findings');
  if (!t.findings.length) w.paragraph('The assessment recorded no findings.');
  for (const [severity, controls] of bySeverity(t.findings)) {
    w.heading(2, `${humanise(severity)} severity (${controls.length})`);
    for (const control of controls) {
      findingBlock(w, control, linked(control));
      await w.breathe();
    }
  }

  controlList(w, 'Effective controls', t.effective, 'No applicable control was assessed effective.');
  controlList(w, 'Inherited and common controls', t.inherited, 'No applicable control is inherited from a provider or assessed as a common control.', (c) =>
    c.assessment.outcome === 'common_control' ? 'Common control' : c.implementation_status === 'ec' ? labelOf(STATUS_LABELS, 'ec') : 'Provider guidance',
  );
  controlList(w, 'Controls not assessed', t.notAssessed, 'Every applicable control was assessed.', (c) => labelOf(WORKFLOW_LABELS, c.workflow_state));
  exclusions(w, t.excluded);
  evidenceCited(w, t.applicable);
  assessorNotes(w, t.applicable);
  registers(w);
  signOff(w);
});

const engagement = (model: DocumentModel, field: string): string | null => model.engagement[field] ?? null;
const scopeText = (model: DocumentModel, field: string): string | null => (typeof model.scope[field] === 'string' ? (model.scope[field] as string) : null);

/** The assessment period: the engagement's dates, else the scope's planned dates. */
function period(model: DocumentModel): string | null {
  const start = engagement(model, 'start_date') ?? scopeText(model, 'planned_start');
  const end = engagement(model, 'end_date') ?? scopeText(model, 'planned_end');
  if (!start && !end) return null;
  return `${start ? formatDate(start) : placeholder('start date')} to ${end ? formatDate(end) : placeholder('end date')}`;
}

const twoColumns = [
  { header: 'Field', share: 0.3, font: 'bold' as const },
  { header: 'Value', share: 0.7 },
];

function executiveSummary(w: PdfLayout, t: Tally, linked: (c: DocumentControl) => Linked): void {
  const { model } = w;
  w.heading(1, 'Executive summary');
  const assessor = engagement(model, 'assessor_organisation') ?? placeholder('assessor organisation');
  const when = period(model);
  const severities = bySeverity(t.findings)
    .map(([s, cs]) => `${cs.length} ${humanise(s).toLowerCase()}`)
    .join(', ');
  w.paragraph(
    `${assessor} assessed ${model.system.name} (${model.system.short_code}) of ${model.organisation.name} against the ${model.release.title} (${model.release.version}) for operation at ${model.marking.name}${when ? `, from ${when}` : ''}. Of the project's ${t.controls} controls, ${t.applicable.length} are applicable and ${t.excluded.length} are excluded. The assessment concluded on ${t.applicable.length - t.notAssessed.length} applicable controls: ${t.effective.length} effective and ${t.findings.length} findings${severities ? ` (${severities})` : ''}; ${t.notAssessed.length} are not assessed.`,
  );
  w.heading(2, 'Recommendation to the authorising officer');
  w.paragraph(overallRecommendation(t, linked), 'bold');
  w.paragraph(
    'Derived from the recorded outcomes, severities and POA&M rows; the assessor confirms or replaces it before the report is final.',
    'italic',
    8.5,
    {
      colour: COLOURS.muted,
    },
  );
  w.paragraph(placeholder("the assessor's narrative: the system's security posture, its main strengths and weaknesses, and the residual risk"), 'italic', 9);
  w.heading(2, 'Outcomes');
  outcomesTable(w, model.controls);
}

function scopeAndBoundary(w: PdfLayout): void {
  const { model } = w;
  w.heading(1, 'Scope and boundary');
  table(w, twoColumns, [
    ['Organisation', model.organisation.name],
    ['System', `${model.system.name} (${model.system.short_code})`],
    ['System description', model.system.description ?? placeholder('the system description')],
    ['Project', model.project.name],
    ['Project description', model.project.description ?? '—'],
    ['Classification', model.marking.name],
    ['Essential Eight target', model.project.essential_eight_target === 'none' ? 'None' : model.project.essential_eight_target],
    ['ISM release', `${model.release.title} (${model.release.version}${model.release.published ? `, published ${formatDate(model.release.published)}` : ''})`],
  ]);
  w.heading(2, 'Recorded scope');
  recordTable(w, model.scope, `No scope is recorded. ${placeholder('the assessment boundary: what is in and out of scope')}`);
  w.heading(2, 'System context');
  recordTable(w, model.context.system, 'No context answers are recorded for the system.');
}

function methodology(w: PdfLayout, t: Tally): void {
  const { model } = w;
  w.heading(1, 'Methodology');
  w.paragraph(
    `The assessment followed the two stages of an IRAP security assessment. Stage 1 established the statement of applicability with the system owner, reviewed the system's architecture and security documentation, and identified deficiencies to rectify. Stage 2 sought evidence of the implementation and effectiveness of each applicable control of the ${model.release.title} (${model.release.version}) through interviews, inspection of configurations and records, and observation.`,
  );
  table(w, twoColumns, [
    ['Assessment type', scopeText(model, 'assessment_type') ? humanise(scopeText(model, 'assessment_type')) : placeholder('the assessment type')],
    ['Assessment period', period(model) ?? placeholder('the assessment dates')],
    ['Objectives', scopeText(model, 'objectives') ?? placeholder('the assessment objectives')],
    ['Report generated', formatDate(model.document.generated_at)],
  ]);
  w.heading(2, 'Outcomes and severities');
  w.paragraph(
    'Each applicable control is concluded as effective, ineffective, no visibility (the assessor could not obtain evidence), not implemented, or a common control; an applicable control without a conclusion is reported as not assessed. A control that is not effective is a finding, rated critical, high, medium or low.',
  );
  w.heading(2, 'Evidence');
  w.paragraph(
    'When a control is concluded, the service pins the version of each piece of evidence it holds, identifying files by their SHA-256 digest. Evidence it cannot pin (an external reference it cannot verify, a live source such as a register or repository, a file that was not ready) is cited as such, with the assessor’s acknowledgement.',
  );
  w.heading(2, 'Limitations');
  const pinned = t.applicable.flatMap(citedEvidence).filter((e) => e.citation.kind === 'pinned').length;
  const cited = t.applicable.flatMap(citedEvidence).length;
  const limits = [
    t.notAssessed.length ? `${t.notAssessed.length} applicable controls were not assessed and carry no conclusion.` : null,
    cited > pinned ? `${cited - pinned} of the ${cited} cited evidence items were not pinned (see Evidence cited).` : null,
  ].filter((l): l is string => l !== null);
  for (const limit of limits) w.paragraph(limit);
  w.paragraph(placeholder('other limitations: access not granted, sampling, systems or sites not visited'), 'italic', 9);
}

function assessorDetails(w: PdfLayout): void {
  const { model } = w;
  w.heading(1, 'Assessor details');
  const orPlaceholder = (field: string, what: string) => engagement(model, field) ?? placeholder(what);
  table(w, twoColumns, [
    ['Assessor organisation', orPlaceholder('assessor_organisation', 'the assessor organisation')],
    ['Lead assessor', orPlaceholder('lead_assessor_name', 'the lead assessor')],
    ['IRAP endorsement', placeholder("the lead assessor's IRAP endorsement")],
    ['Contact', placeholder("the assessor's contact details")],
    ['Client', orPlaceholder('client_name', 'the client')],
    ['Engagement reference', orPlaceholder('engagement_reference', 'the engagement reference')],
  ]);
}

const SUMMARY_COLUMNS = [
  { header: 'Section', share: 0.4 },
  { header: 'Applicable', share: 0.12 },
  { header: 'Effective', share: 0.12 },
  { header: 'Findings', share: 0.12 },
  { header: 'Not assessed', share: 0.12 },
  { header: 'Excluded', share: 0.12 },
];

/** One table per guideline, a row per section: how its controls stand. */
function complianceSummary(w: PdfLayout, controls: DocumentControl[]): void {
  w.heading(1, 'Compliance summary');
  w.paragraph('Controls by guideline and section of the ISM, as the assessment concluded on them.', 'regular', 9, { colour: COLOURS.muted });
  const sections = new Map<string, Map<string, DocumentControl[]>>();
  for (const group of byPath(controls)) {
    const bySection = sections.get(group.guideline) ?? new Map<string, DocumentControl[]>();
    bySection.set(group.section, [...(bySection.get(group.section) ?? []), ...group.controls]);
    sections.set(group.guideline, bySection);
  }
  for (const [guideline, bySection] of sections) {
    w.heading(2, guideline, { toc: false });
    table(
      w,
      SUMMARY_COLUMNS,
      [...bySection].map(([section, cs]) => {
        const t = tally(cs);
        return [section || '—', ...[t.applicable, t.effective, t.findings, t.notAssessed, t.excluded].map((list) => String(list.length))];
      }),
    );
  }
}

/** A finding: the control, its conclusion, severity and risk, the recommendation, its risk and POA&M rows and its evidence. */
function findingBlock(w: PdfLayout, control: DocumentControl, linked: Linked): void {
  const { doc } = w;
  w.ensure(w.lineHeight('bold', 10) * 2 + w.lineHeight('regular', 9.5) * 4);
  w.gap(3);
  w.font('bold', 10, COLOURS.accent);
  w.tag('H3', () => doc.text(`${control.label} · ${topicOf(control)}`, w.left, doc.y, { width: w.width }));
  doc.x = w.left;
  w.gap(2);
  w.paragraph(control.statement, 'italic', 8.5, { colour: COLOURS.muted, after: 3 });
  w.field(
    'Status',
    `${labelOf(OUTCOME_LABELS, control.assessment.outcome)}; implementation ${labelOf(STATUS_LABELS, control.implementation_status) || 'not set'}`,
  );
  w.field('Rationale', control.assessment.rationale ?? placeholder('the rationale of this conclusion'));
  const rating = riskRatingOf(linked);
  w.field(
    'Severity and risk rating',
    `${humanise(control.assessment.severity ?? 'unrated')} severity; ${rating ? `${humanise(rating)} risk` : 'no linked risk is rated'}`,
  );
  if (control.assessment.maturity_level) w.field('Assessed maturity', control.assessment.maturity_level);
  w.field('Recommendation', recommendationOf(linked));
  if (linked.risks.length) {
    table(
      w,
      [
        { header: 'Risk', share: 0.09, font: 'bold' },
        { header: 'Title', share: 0.3 },
        { header: 'Residual', share: 0.11 },
        { header: 'Owner', share: 0.17 },
        { header: 'Status', share: 0.145 },
        { header: 'Review due', share: DATE_SHARE },
      ],
      linked.risks.map((r) => [
        r.risk_id,
        r.title,
        humanise(r.residual_rating ?? r.inherent_rating),
        r.risk_owner?.name ?? '—',
        humanise(r.status),
        r.review_due ? formatDate(r.review_due) : '—',
      ]),
    );
  } else w.field('Risks', 'No risk register row names this control.');
  if (linked.poam.length) {
    table(
      w,
      [
        { header: 'POA&M', share: 0.1, font: 'bold' },
        { header: 'Milestone', share: 0.34 },
        { header: 'Responsible', share: 0.2 },
        { header: 'Status', share: 0.175 },
        { header: 'Due', share: DATE_SHARE },
      ],
      linked.poam.map((p) => [
        p.item_id,
        p.milestone ?? p.weakness,
        p.responsible?.name ?? '—',
        humanise(p.status),
        p.scheduled_completion ? formatDate(p.scheduled_completion) : '—',
      ]),
    );
  } else w.field('POA&M', 'No POA&M row names this control.');
  const cited = citedEvidence(control);
  w.field('Evidence', cited.length ? cited.map((e) => `${e.title} (${citationText(e)})`).join('; ') : 'None cited.');
  if (control.assessment.assessor_notes) w.field('Assessor notes', control.assessment.assessor_notes);
  w.separator(1);
}

/** A list of controls with their topic and, where given, one more fact. */
function controlList(w: PdfLayout, title: string, controls: DocumentControl[], empty: string, fact?: (c: DocumentControl) => string): void {
  w.heading(1, title);
  if (!controls.length) {
    w.paragraph(empty);
    return;
  }
  w.paragraph(`${controls.length} controls.`, 'regular', 9, { colour: COLOURS.muted });
  table(
    w,
    [{ header: 'Control', share: 0.14, font: 'bold' }, { header: 'Topic', share: fact ? 0.6 : 0.86 }, ...(fact ? [{ header: 'Basis', share: 0.26 }] : [])],
    controls.map((c) => [c.label, topicOf(c), ...(fact ? [fact(c)] : [])]),
  );
}

function exclusions(w: PdfLayout, excluded: DocumentControl[]): void {
  w.heading(1, 'Exclusions');
  if (!excluded.length) {
    w.paragraph('No control of the project is excluded.');
    return;
  }
  w.paragraph(`${excluded.length} controls are not applicable to the system, each with the reason recorded for it.`, 'regular', 9, { colour: COLOURS.muted });
  table(
    w,
    [
      { header: 'Control', share: 0.14, font: 'bold' },
      { header: 'Topic', share: 0.3 },
      { header: 'Reason', share: 0.56 },
    ],
    excluded.map((c) => [c.label, topicOf(c), c.applicability_comment ?? `${labelOf(ORIGIN_LABELS, c.applicability_origin)} (no comment recorded)`]),
  );
}

function evidenceCited(w: PdfLayout, applicable: DocumentControl[]): void {
  w.heading(1, 'Evidence cited');
  const concluded = applicable.filter((c) => c.assessment.evidence_references.length > 0);
  if (!concluded.length) {
    w.paragraph('No conclusion cites evidence.');
    return;
  }
  w.paragraph(
    'Each conclusion with the evidence it cites. Only evidence the capture pinned when the control was assessed is cited as pinned, with the digest the capture recorded; every other item is cited for what it is.',
    'regular',
    9,
  );
  table(
    w,
    [
      { header: 'Control', share: 0.1, font: 'bold' },
      { header: 'Outcome', share: 0.12 },
      { header: 'Evidence', share: 0.24 },
      { header: 'Collected', share: DATE_SHARE },
      { header: 'Citation', share: 0.355 },
    ],
    concluded.flatMap(evidenceRows),
  );
}

/** One row per cited item; a reference to an item the control no longer holds is shown as such. */
function evidenceRows(control: DocumentControl): string[][] {
  const outcome = labelOf(OUTCOME_LABELS, control.assessment.outcome ?? 'not_assessed');
  const items = new Map(citedEvidence(control).map((e) => [e.id, e]));
  return control.assessment.evidence_references.map((reference) => {
    const item = items.get(reference);
    if (!item) return [control.label, outcome, `Evidence ${reference} (no longer held by the control)`, '—', '—'];
    return [control.label, outcome, `${item.title} (${kindText(item)})`, item.collected_on ? formatDate(item.collected_on) : '—', citationText(item)];
  });
}

function assessorNotes(w: PdfLayout, applicable: DocumentControl[]): void {
  const notes = applicable.filter((c) => c.assessment.assessor_notes && c.assessment.outcome !== null && !isFinding(c));
  if (!notes.length) return;
  w.heading(1, 'Assessor notes');
  w.paragraph('Notes on conclusions other than findings (the notes on findings are shown with each finding).', 'regular', 9, { colour: COLOURS.muted });
  table(
    w,
    [
      { header: 'Control', share: 0.13, font: 'bold' },
      { header: 'Outcome', share: 0.17 },
      { header: 'Notes', share: 0.7 },
    ],
    notes.map((c) => [c.label, labelOf(OUTCOME_LABELS, c.assessment.outcome), c.assessment.assessor_notes ?? '']),
  );
}

function registers(w: PdfLayout): void {
  const { model } = w;
  w.heading(1, 'Registers');
  if (!model.registers.length) {
    w.paragraph('The project has no registers.');
    return;
  }
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

/** Who signs the report: the lead assessor from the engagement, the authorising officer to complete. */
function signOff(w: PdfLayout): void {
  const { model } = w;
  w.heading(1, 'Sign-off');
  w.paragraph(
    model.document.output === 'final' && model.document.approved_by && model.document.approved_at
      ? `Approved for release by ${model.document.approved_by.name} on ${formatDate(model.document.approved_at)}.`
      : 'Draft: this report is not approved for release.',
  );
  signatures(w, [
    ['Lead assessor', engagement(model, 'lead_assessor_name') ?? placeholder('name')],
    ['System owner', placeholder('name')],
    ['Authorising officer', placeholder('name')],
  ]);
}
