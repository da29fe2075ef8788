import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sspRenderer } from '../../../lib/render/pdf/ssp.js';
import { documentModel } from '../../support/document-model.js';
import { images, pageTexts, renderTo } from '../../support/pdf.js';

const LIMIT = 120;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ssp-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const text = async (name: string, model: ReturnType<typeof documentModel>) =>
  (await pageTexts(await renderTo(sspRenderer, model, dir, name))).join(' ').replace(/\s+/g, ' ');

describe('System Security Plan', () => {
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
  });

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
  });
});
