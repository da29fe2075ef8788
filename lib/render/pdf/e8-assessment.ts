import type { DocumentControl, DocumentEvidence } from '../../domain/document-model.js';
import {
  E8_LEVELS,
  EVIDENCE_GRADES,
  type EvidenceGrade,
  essentialEightMaturity,
  evidenceGrade,
  type OverallMaturity,
  overallMaturity,
  overallTargetStatus,
  type StrategyMaturity,
  sampleOf,
  strategiesOf,
  targetStatus,
} from '../../domain/essential-eight.js';
import {
  GRADE_LABELS,
  LEVEL_STATUS_LABELS,
  labelOf,
  MATURITY_LABELS,
  ORIGIN_LABELS,
  OUTCOME_LABELS,
  STATUS_LABELS,
  TARGET_STATUS_LABELS,
  topicOf,
} from '../labels.js';
import type { Renderer } from '../renderer.js';
import { pdfRenderer } from './document.js';
import { bySeverity, citedEvidence, finding, isFinding } from './findings.js';
import { humanise } from './format.js';
import { COLOURS, type PdfLayout } from './layout.js';
import { type Linked, linkedRows, placeholder, recommendationOf } from './report-links.js';
import { overview, recordTable } from './sections.js';
import { table } from './table.js';

type Target = 'none' | (typeof E8_LEVELS)[number];

/**
 * Essential Eight assessment, in the order of ASD's report template: how much was assessed first,
 * then the maturity each strategy shows (a level is achieved, not achieved, or not determined while
 * its controls are not all assessed), the context and method, and per strategy its scope, test
 * methods and evidence quality as the Assessment Process Guide grades it, samples, compensating
 * controls, findings and recommendations. Where the project holds nothing, a marked placeholder.
 */
export const e8AssessmentRenderer: Renderer = pdfRenderer(async (w) => {
  const { model } = w;
  const target = model.project.essential_eight_target;
  const e8 = model.controls.filter((c) => c.essential_eight.length > 0);
  const applicable = e8.filter((c) => c.applicability === 'y');
  const strategies = essentialEightMaturity(e8);
  const linked = linkedRows(model);

  coverage(w, strategies, e8);
  summary(w, strategies, target);
  overview(w, 'Assessment context');
  w.heading(2, 'Scope');
  recordTable(w, model.scope, `No scope is recorded. ${placeholder('the systems, locations and user groups the assessment covered')}`);
  methodology(w, applicable);

  w.heading(1, 'Maturity by strategy');
  for (const strategy of strategies) {
    strategySection(w, strategy, e8, target, linked);
    await w.breathe();
  }

  w.heading(1, 'Findings');
  const findings = applicable.filter(isFinding);
  if (!findings.length) w.paragraph('The assessment recorded no findings against Essential Eight controls.');
  for (const [severity, controls] of bySeverity(findings)) {
    w.heading(2, `${humanise(severity)} severity (${controls.length})`);
    for (const control of controls) {
      finding(w, control);
      await w.breathe();
    }
  }
});

/** The maturity a strategy (or the organisation) shows: settled, or the range the conclusions still allow. */
function maturityText(m: OverallMaturity): string {
  if (!m.undetermined) return MATURITY_LABELS[m.achieved];
  const bounded = m.atMost !== 'ML3';
  if (m.achieved === 'ML0') return bounded ? `Not determined (at most ${MATURITY_LABELS[m.atMost]})` : 'Not determined';
  if (bounded) return `Not determined: between ${MATURITY_LABELS[m.achieved]} and ${MATURITY_LABELS[m.atMost]}`;
  return `At least ${MATURITY_LABELS[m.achieved]} (${MATURITY_LABELS[m.undetermined]} not determined)`;
}

const assessed = (c: DocumentControl) => c.assessment.outcome !== null && c.assessment.outcome !== 'not_assessed';
const outcomeText = (c: DocumentControl) => labelOf(OUTCOME_LABELS, c.assessment.outcome ?? 'not_assessed');
const of = (part: number, whole: number) => (whole ? `${part} of ${whole}` : 'None apply');

/** How many of each strategy's and level's applicable controls carry a conclusion: the first thing a reader needs. */
function coverage(w: PdfLayout, strategies: StrategyMaturity[], e8: DocumentControl[]): void {
  const applicable = e8.filter((c) => c.applicability === 'y');
  const done = applicable.filter(assessed);
  const common = done.filter((c) => c.assessment.outcome === 'common_control').length;
  w.heading(1, 'Assessment coverage');
  w.paragraph(
    `Controls of the project the ISM marks as Essential Eight requirements: ${e8.length}, of which ${applicable.length} applicable and ${e8.length - applicable.length} excluded. Of the applicable ones, ${done.length} assessed (effective: ${done.filter((c) => c.assessment.outcome === 'effective').length}; ${common ? `met by a common control: ${common}; ` : ''}findings: ${done.filter(isFinding).length}) and ${applicable.length - done.length} not assessed.`,
  );
  w.paragraph(
    'Assessed controls of the controls each level requires, by strategy. A level whose controls are not all assessed is reported as not determined, never as not achieved, unless a control already assessed fails it.',
    'regular',
    9,
    { colour: COLOURS.muted },
  );
  const distinct = E8_LEVELS.map((level) => {
    const required = applicable.filter((c) => c.essential_eight.includes(level));
    return of(required.filter(assessed).length, required.length);
  });
  table(
    w,
    [{ header: 'Strategy', share: 0.37, font: 'bold' }, ...E8_LEVELS.map((level) => ({ header: `${MATURITY_LABELS[level]} assessed`, share: 0.21 }))],
    [...strategies.map((s) => [s.name, ...s.levels.map((l) => of(l.assessed, l.required))]), ['All strategies (each control once)', ...distinct]],
  );
  w.paragraph(
    'Event logging and incident response controls count towards every strategy, as the Essential Eight Maturity Model repeats them under each; the last row counts each control once.',
    'regular',
    8.5,
    { colour: COLOURS.muted },
  );
}

function summary(w: PdfLayout, strategies: StrategyMaturity[], target: Target): void {
  const overall = overallMaturity(strategies);
  w.heading(1, 'Maturity summary');
  w.paragraph(`Overall maturity (the lowest of the eight strategies): ${maturityText(overall)}.`, 'bold', 10);
  if (target === 'none') w.paragraph('The project sets no Essential Eight target maturity level.');
  else {
    const status = overallTargetStatus(strategies, target);
    const short = strategies.filter((s) => targetStatus(s, target) === 'not_met').length;
    const open = strategies.filter((s) => targetStatus(s, target) === 'not_determined').length;
    w.paragraph(
      `The project targets ${MATURITY_LABELS[target]}. Target ${labelOf(TARGET_STATUS_LABELS, status).toLowerCase()}. Strategies that meet it: ${strategies.length - short - open}; that fall short of it: ${short}; not determined: ${open}.`,
    );
  }
  table(
    w,
    [
      { header: 'Strategy', share: 0.25, font: 'bold' },
      ...E8_LEVELS.map((level) => ({ header: level, share: 0.13 })),
      { header: 'Maturity', share: 0.24 },
      { header: 'Target', share: 0.12 },
    ],
    strategies.map((s) => [
      s.name,
      ...s.levels.map((l) => labelOf(LEVEL_STATUS_LABELS, l.status)),
      maturityText(s),
      target === 'none' ? '—' : labelOf(TARGET_STATUS_LABELS, targetStatus(s, target)),
    ]),
  );
  w.heading(2, 'How maturity is determined');
  w.paragraph(
    'A level of a strategy is achieved when every applicable control the ISM requires of that level is assessed effective, or met by a common control; it is not achieved once one of them is assessed otherwise (ineffective, not implemented, no visibility); and it is not determined while, short of that, some of them are not assessed. A strategy reaches a maturity level when that level and every level below it are achieved. Missing conclusions never lower a level: a strategy whose first unmet level is not determined is reported as not determined, or as at least the level below it. Controls that do not apply to the system are left out. The ISM tags each control with the levels that require it; this report places it in a strategy by its ISM topic, reading the statement of patching controls for the software they cover.',
    'regular',
    9,
  );
}

function methodology(w: PdfLayout, applicable: DocumentControl[]): void {
  const ungraded = applicable.flatMap(citedEvidence).filter((e) => evidenceGrade(e.evidence_type) === null).length;
  w.heading(1, 'Methodology');
  w.paragraph(
    "The assessment follows the four stages of ASD's Essential Eight Assessment Process Guide: planning and preparation with the system owner; setting the scope of the assessment; assessing the effectiveness of each control the target maturity level requires; and preparing this report. The guide gives, for each control, the methods that test it, from the one that yields the best evidence down; the methods used here show per strategy in the evidence each conclusion cites.",
  );
  w.heading(2, 'Evidence quality');
  w.paragraph('The guide grades evidence by how directly it shows a control working. This report grades each cited item by the evidence type recorded for it:');
  table(
    w,
    [
      { header: 'Grade', share: 0.16, font: 'bold' },
      { header: 'Evidence', share: 0.84 },
    ],
    [
      [
        'Excellent',
        'A simulated activity that tests the control is in place and effective (an attempt to run an unapproved program, to open a macro from the internet).',
      ],
      ['Good', "The system's configuration reviewed through the system itself, showing that it should enforce the expected policy."],
      ['Fair', "A copy of the system's configuration (a report, an export, a screenshot) showing that it should enforce the expected policy."],
      ['Poor', 'A policy or a statement of intent, written or given at interview.'],
    ],
  );
  w.paragraph(
    `Items whose recorded type names none of these methods are shown as not graded${ungraded ? `: ${ungraded} cited items. ${placeholder('the grade of every item shown as not graded')}` : '; no cited item is.'}`,
    ungraded ? 'italic' : 'regular',
    9,
  );
  w.heading(2, 'Sampling');
  const samples = applicable.filter((c) => sampleOf(c.assessment.rationale)).length;
  w.paragraph(
    samples ? `Conclusions whose rationale records the sample tested: ${samples}; each strategy below lists them.` : 'No rationale records the sample tested.',
  );
  w.paragraph(
    placeholder('the sampling approach: how workstations, servers and accounts were chosen, and the population each sample was drawn from'),
    'italic',
    9,
  );
  w.heading(2, 'Limitations');
  const missing = applicable.filter((c) => !assessed(c)).length;
  if (missing) w.paragraph(`Applicable Essential Eight controls not assessed: ${missing}. The levels that require them are not determined.`);
  w.paragraph(placeholder('other limitations: systems, locations or tools the assessor could not reach'), 'italic', 9);
}

function strategySection(w: PdfLayout, strategy: StrategyMaturity, e8: DocumentControl[], target: Target, linked: (c: DocumentControl) => Linked): void {
  const own = e8.filter((c) => strategiesOf(c).includes(strategy.key));
  const applicable = own.filter((c) => c.applicability === 'y');
  const excluded = own.filter((c) => c.applicability !== 'y');
  const status = target === 'none' ? null : targetStatus(strategy, target);
  w.heading(2, strategy.name);
  w.paragraph(
    `Assessed maturity: ${maturityText(strategy)}.${status && target !== 'none' ? ` Target (${MATURITY_LABELS[target]}): ${labelOf(TARGET_STATUS_LABELS, status).toLowerCase()}.` : ''}`,
    'bold',
    10,
    { colour: status === 'not_met' ? COLOURS.marking : COLOURS.text },
  );
  table(
    w,
    [
      { header: 'Level', share: 0.28, font: 'bold' },
      { header: 'Applicable', share: 0.15 },
      { header: 'Assessed', share: 0.14 },
      { header: 'Met', share: 0.14 },
      { header: 'Status', share: 0.29 },
    ],
    strategy.levels.map((l) => [MATURITY_LABELS[l.level], String(l.required), String(l.assessed), String(l.effective), labelOf(LEVEL_STATUS_LABELS, l.status)]),
  );

  const next = strategy.levels.find((l) => l.status !== 'achieved')?.level;
  if (next && strategy.heldBackBy.length) {
    const byId = new Map(own.map((c) => [c.id, c]));
    const blockers = strategy.heldBackBy.flatMap((id) => byId.get(id) ?? []);
    w.field(`Between it and ${MATURITY_LABELS[next]}`, blockers.map((c) => `${c.label} (${outcomeText(c).toLowerCase()})`).join(', '));
  }

  w.heading(3, 'Scope', { toc: false });
  const levels = E8_LEVELS.map((level) => `${applicable.filter((c) => c.essential_eight.includes(level)).length} at ${level}`).join(', ');
  w.paragraph(
    `Applicable controls counted towards this strategy: ${applicable.length} (${levels}). Excluded: ${excluded.length ? `${excluded.length}, with the reasons below` : 'none'}.`,
  );
  if (excluded.length) {
    table(
      w,
      [
        { header: 'Excluded', share: 0.14, font: 'bold' },
        { header: 'Topic', share: 0.3 },
        { header: 'Reason', share: 0.56 },
      ],
      excluded.map((c) => [c.label, topicOf(c), c.applicability_comment ?? `${labelOf(ORIGIN_LABELS, c.applicability_origin)} (no comment recorded)`]),
    );
  }

  w.heading(3, 'Test methods and evidence quality', { toc: false });
  evidenceQuality(w, applicable);

  const samples = new Map<string, string[]>();
  for (const c of applicable) {
    const sample = sampleOf(c.assessment.rationale);
    if (sample) samples.set(sample, [...(samples.get(sample) ?? []), c.label]);
  }
  w.field(
    'Sample sizes',
    samples.size ? [...samples].map(([sample, labels]) => `${sample} (${labels.join(', ')})`).join('; ') : placeholder('the sample tested for this strategy'),
  );

  const compensating = applicable.filter((c) => c.implementation_status === 'alternate_control');
  w.heading(3, 'Compensating controls', { toc: false });
  if (!compensating.length) w.paragraph('The project records no alternate control for this strategy.');
  else {
    table(
      w,
      [
        { header: 'Control', share: 0.13, font: 'bold' },
        { header: 'Compensating control as implemented', share: 0.62 },
        { header: 'Outcome', share: 0.25 },
      ],
      compensating.map((c) => [
        c.label,
        c.implementation_description ?? c.implementation_summary ?? placeholder('the compensating control and why it gives equivalent protection'),
        outcomeText(c),
      ]),
    );
  }

  w.heading(3, 'Findings and recommendations', { toc: false });
  const findings = bySeverity(applicable.filter(isFinding)).flatMap(([, controls]) => controls);
  if (!findings.length) w.paragraph('No finding: no applicable control of this strategy is assessed other than effective.');
  else {
    table(
      w,
      [
        { header: 'Control', share: 0.12, font: 'bold' },
        { header: 'Levels', share: 0.1 },
        { header: 'Outcome and severity', share: 0.16 },
        { header: 'Rationale', share: 0.31 },
        { header: 'Recommendation', share: 0.31 },
      ],
      findings.map((c) => [
        c.label,
        c.essential_eight.join(', '),
        `${outcomeText(c)}, ${humanise(c.assessment.severity ?? 'unrated').toLowerCase()}`,
        c.assessment.rationale ?? placeholder('the rationale'),
        recommendationOf(linked(c)),
      ]),
    );
  }
  const missing = applicable.filter((c) => !assessed(c));
  if (missing.length) {
    w.field('Not assessed', `${missing.map((c) => c.label).join(', ')} (no conclusion yet: a level they leave incomplete is not determined).`);
  }

  w.heading(3, 'Controls', { toc: false });
  table(
    w,
    [
      { header: 'Control', share: 0.13, font: 'bold' },
      { header: 'Levels', share: 0.15 },
      { header: 'Implementation', share: 0.19 },
      { header: 'Outcome', share: 0.15 },
      { header: 'Topic', share: 0.38 },
    ],
    applicable.map((c) => [c.label, c.essential_eight.join(', '), labelOf(STATUS_LABELS, c.implementation_status) || 'Not set', outcomeText(c), topicOf(c)]),
  );
}

/** The cited evidence of the strategy's controls by the type recorded for it, with its grade; then the count per grade. */
function evidenceQuality(w: PdfLayout, controls: DocumentControl[]): void {
  const cited: DocumentEvidence[] = controls.flatMap(citedEvidence);
  if (!cited.length) {
    w.paragraph(`No conclusion of this strategy cites evidence. ${placeholder('the test methods used for this strategy')}`);
    return;
  }
  const byType = new Map<string, { grade: EvidenceGrade | null; items: number }>();
  for (const e of cited) {
    const type = e.evidence_type ?? `${humanise(e.kind)} (no type recorded)`;
    const entry = byType.get(type) ?? { grade: evidenceGrade(e.evidence_type), items: 0 };
    entry.items += 1;
    byType.set(type, entry);
  }
  table(
    w,
    [
      { header: 'Test method (evidence type)', share: 0.6 },
      { header: 'Grade', share: 0.22 },
      { header: 'Items', share: 0.18 },
    ],
    [...byType].map(([type, { grade, items }]) => [type, grade ? GRADE_LABELS[grade] : 'Not graded', String(items)]),
  );
  const counts = [...EVIDENCE_GRADES, null].map((grade) => [grade, cited.filter((e) => evidenceGrade(e.evidence_type) === grade).length] as const);
  const graded = counts.filter(([, n]) => n > 0).map(([grade, n]) => `${grade ? GRADE_LABELS[grade] : 'not graded'} ${n}`);
  w.field('Evidence quality', `${graded.join(', ')} of ${cited.length} cited items`);
}
