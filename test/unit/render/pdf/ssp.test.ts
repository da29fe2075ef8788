import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sspRenderer } from '../../../../lib/render/pdf/ssp.js';
import { documentModel } from '../../../support/document-model.js';
import { images, pageTexts, renderTo } from '../../../support/pdf.js';

const LIMIT = 120;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ssp-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const text = async (name: string, model: ReturnType<typeof documentModel>) =>
  (await pageTexts(await renderTo(sspRenderer, model, dir, name))).join(' ').replace(/\s+/g, ' ');

describe('System Security Plan', () => {
  let model: ReturnType<typeof documentModel>;
  let plan: string;
  beforeAll(async () => {
    model = documentModel({ limit: LIMIT });
    plan = await text('plan', model);
  }, 60_000);
  const sectionFrom = (heading: string) => plan.slice(plan.lastIndexOf(heading));

  it('shows its sections in reading order', () => {
    const sections = [
      'Document control',
      'Version history',
      'Approval',
      'System and project',
      'Roles and contacts',
      'System purpose',
      'Users',
      'Interfaces',
      'Data flows',
      'Network diagram',
      'Inherited and common controls',
      'Common controls',
      'Related plans',
      'Implementation summary',
      'Controls not applicable',
    ];
    // The body starts after the contents, which list the same titles.
    let at = plan.indexOf('Version history Version Date');
    for (const section of sections.slice(2)) {
      const next = plan.indexOf(section, at);
      expect(next, section).toBeGreaterThan(at);
      at = next;
    }
  });

  it('gives the version history from the earlier generations of the plan, this one last, and an approval block', () => {
    const history = sectionFrom('Version history');
    expect(history).toMatch(/1 14 September 2026 Final, approved by Jordan Owner on 15 September 2026 Alex Assessor/);
    expect(history).toMatch(/2 25 November 2026 Draft for review \(this version\) Alex Assessor/);
    expect(history).toContain('Security Assessment Report (draft, 1 November 2026)');
    expect(sectionFrom('Approval')).toMatch(/System owner Casey Owner .*Authorising officer \[To be completed by the assessor: name\]/);
  });

  it("names the system's active contacts with their roles", () => {
    expect(sectionFrom('Roles and contacts')).toContain('Casey Owner System owner Department of Examples casey.owner@example.gov.au 02 6000 0000');
  });

  it('describes purpose, users, interfaces and data flows from the context, with marked placeholders where nothing holds them', () => {
    expect(sectionFrom('System purpose')).toContain('[To be completed by the assessor: the system');
    expect(sectionFrom('Users')).toContain("[To be completed by the assessor: the system's users");
    expect(sectionFrom('Interfaces')).toContain('It relies on Example Cloud (IRAP assessment 2026).');
  });

  it("lists the controls inherited from each provider release with the provider's guidance, and the common controls", () => {
    const inherited = sectionFrom('Inherited and common controls');
    const control = model.controls.find((c) => c.applicability === 'y' && c.provider_guidance.length)!;
    expect(inherited).toContain('Example Cloud: IRAP assessment 2026 (2026.1)');
    expect(inherited).toContain(`${control.label} ${control.provider_guidance[0]!.responsibility === 'shared' ? 'Shared' : 'Provider'} Enable tenant logging.`);
    const ec = model.controls.find((c) => c.applicability === 'y' && c.implementation_status === 'ec')!;
    expect(sectionFrom('Common controls')).toContain(ec.label);
  });

  it('names the related plans the project records', () => {
    expect(sectionFrom('Related plans')).toContain('Incident response plan Procedure 1 March 2026 1 March 2027 2 October 2026');
  });

  it('gives each control its ISM revision, last update and responsibility', () => {
    const control = model.controls.find(
      (c) => c.applicability === 'y' && c.revision !== null && !c.provider_guidance.length && c.implementation_status !== 'ec',
    )!;
    expect(plan).toContain(`ISM: revision ${control.revision}, updated December 2025; responsibility: System owner`);
  });

  it('gives every exclusion a reason: the recorded one, else the recommendation that excluded it', () => {
    const excluded = sectionFrom('Controls not applicable');
    const commented = model.controls.find((c) => c.applicability === 'n' && c.applicability_comment)!;
    const recommended = model.controls.find((c) => c.applicability === 'n' && !c.applicability_comment)!;
    expect(excluded).toContain(`${commented.label} Default inclusion The system has no wireless networks`);
    expect(excluded).toContain(`${recommended.label} Initial recommendation Recommended exclusion: The scope has no wireless networks.`);
  });

  it("shows each applicable control's implementation description, and no other control's", async () => {
    const model = documentModel({ limit: LIMIT });
    const all = await text('descriptions', model);
    for (const control of model.controls) {
      const description = control.implementation_description?.split('.')[0];
      if (description && control.applicability === 'y') expect(all).toContain(description);
    }
    const excluded = model.controls.find((c) => c.applicability === 'n')!;
    expect(all).not.toContain(`The agency meets ${excluded.label} as follows`);
  });

  it('shows implementation notes only when the model carries them', async () => {
    const shown = await text('notes-shown', documentModel({ limit: LIMIT, showImplementationNotes: true }));
    const hidden = await text('notes-hidden', documentModel({ limit: LIMIT, showImplementationNotes: false }));
    expect(shown).toContain('Implementation notes: Proposed outcome');
    expect(hidden).not.toContain('Implementation notes');
  }, 30_000);

  it('draws the logo on the title page and the network diagram, and no other image', async () => {
    const pdf = await renderTo(sspRenderer, documentModel({ limit: 20 }), dir, 'images');
    expect((await images(pdf)).map(([page, width, height]) => [page === 1, width, height])).toEqual([
      [true, 120, 60],
      [false, 800, 500],
    ]);
  });

  it('draws no image when the model has neither logo nor diagram', async () => {
    const pdf = await renderTo(sspRenderer, documentModel({ limit: 20, images: false }), dir, 'no-images');
    expect(await images(pdf)).toEqual([]);
    expect((await pageTexts(pdf)).join(' ')).toContain('No network diagram is registered for this system.');
  });

  it('renders non-Latin text of user fields in the embedded font', async () => {
    const model = documentModel({ limit: 20 });
    model.system.name = 'Σύστημα διαχείρισης — Система учёта';
    expect(await text('non-latin', model)).toContain('Σύστημα διαχείρισης — Система учёта');
  });

  it('writes the PDF to its sink as it goes, in many chunks before it resolves', async () => {
    const writes: number[] = [];
    const out = new Writable({
      highWaterMark: 1024,
      write(_chunk, _encoding, done) {
        writes.push(Date.now());
        setImmediate(done);
      },
    });
    await sspRenderer.render(documentModel({ limit: LIMIT }), out);
    expect(out.writableFinished).toBe(true);
    expect(writes.length).toBeGreaterThan(10);
  }, 30_000);
});
