import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentControl, DocumentModel } from '../../../../lib/domain/document-model.js';
import { E8_STRATEGIES, essentialEightMaturity, strategiesOf } from '../../../../lib/domain/essential-eight.js';
import { e8AssessmentRenderer } from '../../../../lib/render/pdf/e8-assessment.js';
import { documentModel } from '../../../support/document-model.js';
import { isTagged, pageTexts, renderTo } from '../../../support/pdf.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'e8-assessment-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const flat = (pages: string[]) => pages.join(' ').replace(/\s+/g, ' ');
const between = (text: string, from: string, to: string) => text.slice(text.indexOf(from), text.indexOf(to, text.indexOf(from) + from.length));

/** A TOP SECRET project whose Essential Eight controls all apply and are assessed effective, each citing one item. */
function allEffective(): DocumentModel {
  const model = documentModel({ key: 'e8-assessment', classification: 'TS', essentialEightTarget: 'ML2' });
  const item = model.controls.find((c) => c.evidence.length)!.evidence[0]!;
  for (const c of e8Controls(model)) {
    c.applicability = 'y';
    c.assessment.outcome = 'effective';
    c.assessment.severity = null;
    c.evidence = [{ ...item, id: `EV-${c.id}` }];
    c.assessment.evidence_references = [`EV-${c.id}`];
  }
  return model;
}

const e8Controls = (model: DocumentModel) => model.controls.filter((c) => c.essential_eight.length > 0);
/** The controls of the strategy's own topics (not the logging controls every strategy shares) that `level` is the first to require. */
const ownControls = (model: DocumentModel, key: string, level: string): DocumentControl[] =>
  e8Controls(model).filter((c) => strategiesOf(c).length === 1 && strategiesOf(c)[0] === key && c.essential_eight[0] === level);
const ownControl = (model: DocumentModel, key: string, level: string): DocumentControl => ownControls(model, key, level)[0]!;

/** The report's text in reading order, from its first section on (past the title page and the contents). */
async function render(model: DocumentModel, name: string): Promise<{ path: string; text: string }> {
  const path = await renderTo(e8AssessmentRenderer, model, dir, name);
  const text = flat(await pageTexts(path));
  return { path, text: text.slice(text.indexOf('Assessment coverage Controls of the project')) };
}

describe('Essential Eight assessment', () => {
  it('opens with the coverage: how many controls of each strategy and level are assessed', async () => {
    const model = documentModel({ key: 'e8-assessment', classification: 'TS' });
    const { path, text } = await render(model, 'coverage');
    expect((await pageTexts(path))[2]).toContain('Assessment coverage');
    const coverage = between(text, 'Assessment coverage', 'Maturity summary');
    for (const strategy of essentialEightMaturity(model.controls)) {
      expect(coverage).toContain(`${strategy.name} ${strategy.levels.map((l) => `${l.assessed} of ${l.required}`).join(' ')}`);
    }
  });

  it('reports a level whose controls are not all assessed as not determined, never as Maturity Level Zero', async () => {
    const model = allEffective();
    ownControl(model, 'application-control', 'ML1').assessment.outcome = null;
    const { path, text } = await render(model, 'not-determined');
    const summary = between(text, 'Maturity summary', 'How maturity is determined');
    expect(summary).toContain('Overall maturity (the lowest of the eight strategies): Not determined.');
    expect(summary).toContain('Application control Not determined');
    expect(summary).toMatch(/Patch applications Achieved Achieved Achieved Maturity Level Three Met/);
    expect(summary).toContain('Target not determined. Strategies that meet it: 7; that fall short of it: 0; not determined: 1.');
    expect(text).not.toContain('Maturity Level Zero');
    expect(text).toMatch(/Application control Assessed maturity: Not determined\. Target \(Maturity Level Two\): not determined\./);
    expect(text).toContain(`Between it and Maturity Level One: ${ownControl(model, 'application-control', 'ML1').label} (not assessed)`);
    expect(await isTagged(path)).toBe(true);
  });

  it('bounds a maturity not determined by the level a failed control leaves not achieved', async () => {
    const model = allEffective();
    ownControl(model, 'application-control', 'ML1').assessment.outcome = null;
    const failed = ownControl(model, 'application-control', 'ML3');
    failed.assessment.outcome = 'no_visibility';
    failed.assessment.severity = 'low';
    const { text } = await render(model, 'bounded');
    const summary = between(text, 'Maturity summary', 'How maturity is determined');
    expect(summary).toContain('Overall maturity (the lowest of the eight strategies): Not determined (at most Maturity Level Two).');
    expect(summary).toContain('Application control Not determined Not determined Not achieved Not determined (at most Maturity Level Two)');
    expect(text).not.toContain('Maturity Level Zero');
  });

  it('reports the levels a failed control leaves not achieved, and those below it achieved', async () => {
    const model = allEffective();
    const failed = ownControl(model, 'application-control', 'ML2');
    failed.assessment.outcome = 'ineffective';
    failed.assessment.severity = 'high';
    const { text } = await render(model, 'not-achieved');
    const summary = between(text, 'Maturity summary', 'How maturity is determined');
    expect(summary).toContain('Overall maturity (the lowest of the eight strategies): Maturity Level One.');
    expect(summary).toMatch(/Application control Achieved Not achieved (Not achieved|Achieved) Maturity Level One Not met/);
    expect(summary).toContain('Target not met. Strategies that meet it: 7; that fall short of it: 1; not determined: 0.');
    const section = between(text, 'Application control Assessed maturity', 'Restrict Microsoft Office macros Assessed maturity');
    expect(section).toContain('Assessed maturity: Maturity Level One. Target (Maturity Level Two): not met.');
    expect(section).toContain(`Between it and Maturity Level Two: ${failed.label} (ineffective)`);
    expect(section).toContain(failed.label);
  });

  it('gives each strategy its scope, test methods and graded evidence, samples, compensating controls, findings and recommendations', async () => {
    const model = allEffective();
    const [tested, policy, alternate] = ownControls(model, 'restrict-office-macros', 'ML3') as [DocumentControl, DocumentControl, DocumentControl];
    tested.evidence[0]!.evidence_type = 'Simulated macro execution test';
    policy.evidence[0]!.evidence_type = 'Macro policy';
    alternate.implementation_status = 'alternate_control';
    alternate.implementation_description = 'Macros are blocked at the mail gateway instead.';
    alternate.assessment.outcome = 'not_implemented';
    alternate.assessment.severity = 'medium';
    alternate.assessment.rationale = 'Sampled 5 of 60 workstations; macros ran from the internet.';
    model.poam = [{ ...model.poam[0]!, related_control: alternate.label, milestone: 'Block macros from the internet by group policy.', status: 'open' }];
    const { text } = await render(model, 'strategy');
    const section = between(text, 'Restrict Microsoft Office macros Assessed maturity', 'User application hardening Assessed maturity');
    const order = ['Scope', 'Test methods and evidence quality', 'Sample sizes', 'Compensating controls', 'Findings and recommendations', 'Controls'];
    const at = order.map((heading) => section.indexOf(heading));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect(at).toEqual([...at].sort((a, b) => a - b));
    expect(section).toContain('Simulated macro execution test Excellent 1');
    expect(section).toContain('Macro policy Poor 1');
    expect(section).toMatch(/Evidence quality: Excellent 1, Fair \d+, Poor 1 of \d+ cited items/);
    expect(section).toContain(`Sampled 5 of 60 workstations (${alternate.label})`);
    expect(section).toContain('Macros are blocked at the mail gateway instead.');
    expect(section).toContain('Block macros from the internet by group policy. (POAM-1)');
  });

  it('prints a marked placeholder where the project holds nothing for a piece', async () => {
    const model = allEffective();
    for (const c of model.controls) {
      c.assessment.rationale = null;
      c.evidence = c.evidence.map((e) => ({ ...e, evidence_type: null }));
    }
    model.scope = {};
    const { text } = await render(model, 'placeholders');
    expect(text).toContain('[To be completed by the assessor: the sample tested for this strategy]');
    expect(text).toContain('[To be completed by the assessor: the grade of every item shown as not graded]');
    expect(text).toContain('No scope is recorded. [To be completed by the assessor:');
    expect(between(text, 'Patch applications Assessed maturity', 'Patch operating systems Assessed maturity')).toMatch(/\(no type recorded\) Not graded \d+/);
  });

  it('writes the saved dates of the engagement and the scope as its other dates, and the target as its level', async () => {
    const { text } = await render(documentModel({ key: 'e8-assessment', limit: 400 }), 'context');
    const context = between(text, 'Assessment context', 'Methodology');
    expect(context).toContain('Start date 1 October 2026');
    expect(context).toContain('Planned end 1 December 2026');
    expect(context).toContain('Essential Eight target Maturity Level Two');
  });

  it('marks an engagement field left empty for the assessor to complete', async () => {
    const model = documentModel({ key: 'e8-assessment', limit: 400 });
    model.engagement = { ...model.engagement, lead_assessor_name: null };
    const { text } = await render(model, 'blank-engagement');
    expect(between(text, 'Assessment context', 'Methodology')).toContain('Lead assessor name [To be completed by the assessor: the lead assessor name]');
  });

  it('names every strategy in the contents order of the maturity model', async () => {
    const { text } = await render(documentModel({ key: 'e8-assessment', limit: 400 }), 'order');
    const section = text.slice(text.indexOf('Maturity by strategy', text.indexOf('Methodology')));
    const at = E8_STRATEGIES.map((s) => section.indexOf(`${s.name} Assessed maturity`));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect(at).toEqual([...at].sort((a, b) => a - b));
  });
});
