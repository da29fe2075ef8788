import type { DocumentControl } from '../../domain/document-model.js';
import { E8_LEVELS, essentialEightMaturity, type Maturity, meetsTarget, type StrategyMaturity, strategiesOf } from '../../domain/essential-eight.js';
import type { Renderer } from '../renderer.js';
import { pdfRenderer } from './document.js';
import { bySeverity, finding, isFinding } from './findings.js';
import { humanise } from './format.js';
import { COLOURS, type PdfLayout } from './layout.js';
import { overview } from './sections.js';
import { table } from './table.js';

/** Essential Eight assessment: the target level, the maturity each strategy achieved and the findings holding it back. */
export const e8AssessmentRenderer: Renderer = pdfRenderer(async (w) => {
  const { model } = w;
  const target = model.project.essential_eight_target;
  const e8 = model.controls.filter((c) => c.essential_eight.length > 0);
  const byId = new Map(e8.map((c) => [c.id, c]));
  const strategies = essentialEightMaturity(e8);
  const overall = lowest(strategies.map((s) => s.achieved));

  overview(w, 'Assessment context');
  w.heading(1, 'Maturity summary');
  w.paragraph(
    target === 'none'
      ? 'The project sets no Essential Eight target maturity level.'
      : `The project targets Essential Eight Maturity Level ${target.slice(2)}. ${
          strategies.every((s) => meetsTarget(s.achieved, target))
            ? 'Every strategy reaches it.'
            : `${strategies.filter((s) => !meetsTarget(s.achieved, target)).length} of the eight strategies fall short of it.`
        }`,
  );
  w.paragraph(`Overall maturity (the lowest of the eight strategies): ${label(overall)}.`, 'bold', 10);
  table(
    w,
    [
      { header: 'Strategy', share: 0.34, font: 'bold' },
      { header: 'Achieved', share: 0.14 },
      { header: 'Target', share: 0.13 },
      ...E8_LEVELS.map((level) => ({ header: `${level} effective`, share: 0.13 })),
    ],
    strategies.map((s) => [
      s.name,
      s.achieved,
      target === 'none' ? '—' : meetsTarget(s.achieved, target) ? 'Met' : 'Not met',
      ...s.levels.map((l) => `${l.effective} of ${l.required}`),
    ]),
  );
  w.heading(2, 'How maturity is determined');
  w.paragraph(
    'A strategy achieves a maturity level when every applicable control the ISM requires of that level is assessed effective, and every level below it is achieved too. Controls that do not apply to the system are left out. The ISM tags each control with the levels that require it; this report places it in a strategy by its ISM topic, reading the statement of patching controls for the software they cover. Event logging and incident response controls count towards every strategy, as the Essential Eight Maturity Model repeats them under each.',
    'regular',
    9,
  );

  w.heading(1, 'Maturity by strategy');
  for (const strategy of strategies) {
    section(w, strategy, byId, target);
    await w.breathe();
  }

  w.heading(1, 'Findings');
  const findings = e8.filter(isFinding);
  if (!findings.length) w.paragraph('The assessment recorded no findings against Essential Eight controls.');
  for (const [severity, controls] of bySeverity(findings)) {
    w.heading(2, `${humanise(severity)} severity (${controls.length})`);
    for (const control of controls) {
      finding(w, control);
      await w.breathe();
    }
  }
});

function section(w: PdfLayout, strategy: StrategyMaturity, byId: Map<string, DocumentControl>, target: 'none' | 'ML1' | 'ML2' | 'ML3'): void {
  w.heading(2, strategy.name);
  const next = E8_LEVELS[strategy.achieved === 'ML0' ? 0 : E8_LEVELS.indexOf(strategy.achieved) + 1];
  const short = target !== 'none' && !meetsTarget(strategy.achieved, target);
  const verdict = target === 'none' ? '' : short ? `, short of the target ${target}` : ', which meets the target';
  w.paragraph(`Achieved: ${label(strategy.achieved)}${verdict}.`, 'bold', 10, { colour: short ? COLOURS.marking : COLOURS.text });
  if (next && strategy.heldBackBy.length) {
    w.paragraph(
      `${strategy.heldBackBy.length} control${strategy.heldBackBy.length === 1 ? '' : 's'} hold${strategy.heldBackBy.length === 1 ? 's' : ''} it back from ${next}:`,
    );
    const blockers = strategy.heldBackBy.map((id) => byId.get(id)).filter((c): c is DocumentControl => c !== undefined);
    table(
      w,
      [
        { header: 'Control', share: 0.13, font: 'bold' },
        { header: 'Levels', share: 0.15 },
        { header: 'Outcome', share: 0.17 },
        { header: 'Statement', share: 0.55 },
      ],
      blockers.map((c) => [c.label, c.essential_eight.join(', '), humanise(c.assessment.outcome ?? 'not_assessed'), c.statement]),
    );
  }
  const controls = [...byId.values()].filter((c) => c.applicability === 'y' && strategiesOf(c).includes(strategy.key));
  w.paragraph(`Applicable controls counted towards this strategy (${controls.length}):`, 'regular', 9, { colour: COLOURS.muted });
  table(
    w,
    [
      { header: 'Control', share: 0.13, font: 'bold' },
      { header: 'Levels', share: 0.15 },
      { header: 'Outcome', share: 0.17 },
      { header: 'Topic', share: 0.55 },
    ],
    controls.map((c) => [c.label, c.essential_eight.join(', '), humanise(c.assessment.outcome ?? 'not_assessed'), c.path[2] ?? '']),
  );
}

function label(maturity: Maturity): string {
  return `Maturity Level ${maturity.slice(2)}`;
}

function lowest(levels: Maturity[]): Maturity {
  const order: Maturity[] = ['ML0', 'ML1', 'ML2', 'ML3'];
  return levels.reduce((low, l) => (order.indexOf(l) < order.indexOf(low) ? l : low), 'ML3');
}
