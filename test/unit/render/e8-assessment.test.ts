import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { E8_STRATEGIES, essentialEightMaturity, strategiesOf } from '../../../lib/domain/essential-eight.js';
import { e8AssessmentRenderer } from '../../../lib/render/pdf/e8-assessment.js';
import { documentModel } from '../../support/document-model.js';
import { pageTexts, renderTo } from '../../support/pdf.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'e8-assessment-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('Essential Eight assessment', () => {
  it('states the target and the maturity each strategy achieved', async () => {
    const model = documentModel({ key: 'e8-assessment', essentialEightTarget: 'ML2' });
    for (const control of model.controls.filter((c) => c.essential_eight.length && strategiesOf(c).includes('application-control'))) {
      control.applicability = 'y';
      control.assessment.outcome = 'effective';
    }
    const pages = await pageTexts(await renderTo(e8AssessmentRenderer, model, dir, 'maturity'));
    const summary = pages.find((p) => p.includes('Overall maturity'))!.replace(/\s+/g, ' ');
    expect(summary).toContain('targets Essential Eight Maturity Level 2');
    const achieved = essentialEightMaturity(model.controls);
    expect(achieved.find((s) => s.key === 'application-control')?.achieved).toBe('ML3');
    for (const strategy of E8_STRATEGIES) {
      expect(summary).toContain(`${strategy.name} ${achieved.find((s) => s.key === strategy.key)!.achieved}`);
    }
  });

  it('names the controls that hold a strategy back', async () => {
    const model = documentModel({ key: 'e8-assessment' });
    const blocker = model.controls.find((c) => c.id === essentialEightMaturity(model.controls)[0]!.heldBackBy[0])!;
    const all = (await pageTexts(await renderTo(e8AssessmentRenderer, model, dir, 'blockers'))).join(' ').replace(/\s+/g, ' ');
    const section = all.slice(all.indexOf('Maturity by strategy Patch applications'), all.indexOf('Patch operating systems Achieved'));
    expect(section).toMatch(/controls? holds? it back from ML1/);
    expect(section).toContain(blocker.label);
  });
});
