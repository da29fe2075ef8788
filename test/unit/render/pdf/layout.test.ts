import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyPages, measuringLayout } from '../../../support/pdf.js';
import { png } from '../../../support/files.js';

/** Positions, page breaks and headings from the layout's own state; what it writes from poppler's text. */
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdf-layout-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const TOP = 74;
const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');

/** A layout on its first page, its cursor `fromBottom` points above the bottom margin. */
function near(fromBottom: number) {
  const w = measuringLayout();
  w.addPage();
  w.doc.y = w.bottom - fromBottom;
  return w;
}

/** pdfkit's outline as it stands (its items are untyped in lib/render/pdf/pdfkit.d.ts): each bookmark's title and children. */
interface OutlineNode {
  outlineData: { Title?: unknown };
  children: OutlineNode[];
}
const titles = (items: OutlineNode[]): unknown[] => items.map((i) => [String(i.outlineData.Title), titles(i.children)]);
const outlineOf = (w: ReturnType<typeof measuringLayout>) => titles((w.doc.outline as unknown as OutlineNode).children);

describe('pages', () => {
  it('counts the pages as they are added', () => {
    const w = measuringLayout();
    for (let i = 0; i < 3; i++) w.addPage();
    expect(w.pageNumber).toBe(3);
  });

  it('keeps the cursor where it was across the page furniture', () => {
    const w = measuringLayout();
    w.addPage();
    expect([w.doc.x, w.doc.y]).toEqual([w.left, TOP]);
  });

  it('starts a new page, at the top margin, for a height that does not fit', () => {
    const w = near(40);
    w.ensure(41);
    expect([w.pageNumber, w.doc.y]).toEqual([2, TOP]);
  });

  it('stays on the page for a height that fits', () => {
    const w = near(40);
    w.ensure(40);
    expect([w.pageNumber, w.doc.y]).toEqual([1, w.bottom - 40]);
  });

  it('moves the cursor down by a gap, but never past the bottom margin', () => {
    const w = near(10);
    w.gap(5);
    w.gap(10);
    expect(w.doc.y).toBe(w.bottom - 5);
  });

  it('flows a paragraph longer than a page onto the next pages, back at the left margin', () => {
    const w = measuringLayout();
    w.addPage();
    w.paragraph(words(1500), 'regular', 9.5, { indent: 20 });
    expect({ pages: w.pageNumber > 1, x: w.doc.x }).toEqual({ pages: true, x: w.left });
  });
});

describe('headings', () => {
  it('opens a page for a level-1 heading once the page holds anything', () => {
    const w = measuringLayout();
    w.addPage();
    w.heading(1, 'First');
    w.paragraph('Some text.');
    w.heading(1, 'Second');
    expect(w.headings.map((h) => [h.title, h.page])).toEqual([
      ['First', 1],
      ['Second', 2],
    ]);
  });

  it('keeps a level-2 heading with what follows: too near the bottom, it opens the next page', () => {
    const w = near(80);
    w.heading(2, 'Kept');
    expect(w.headings[0]!.page).toBe(2);
  });

  it('sets a level-2 heading where it is when there is room below it', () => {
    const w = near(400);
    w.heading(2, 'Here');
    expect(w.headings[0]!.page).toBe(1);
  });

  it('lists levels 1 and 2 in the contents and level 3 not, each by a destination of its own', () => {
    const w = measuringLayout();
    w.addPage();
    w.heading(1, 'One');
    w.heading(2, 'Two');
    w.heading(3, 'Three');
    w.heading(3, 'Listed', { toc: true });
    expect(w.headings.map((h) => [h.level, h.dest, h.toc])).toEqual([
      [1, 'h0', true],
      [2, 'h1', true],
      [3, 'h2', false],
      [3, 'h3', true],
    ]);
  });

  it('bookmarks no heading in the measuring pass', () => {
    const w = measuringLayout();
    w.addPage();
    w.heading(1, 'One');
    expect(outlineOf(w)).toEqual([]);
  });

  it('bookmarks each heading under the heading one level up in the output pass', () => {
    const w = measuringLayout({ totalPages: 3, headingPages: [1, 1, 2] });
    w.addPage();
    w.heading(1, 'One');
    w.heading(2, 'One.one');
    w.heading(1, 'Two');
    expect(outlineOf(w)).toEqual([
      ['One', [['One.one', []]]],
      ['Two', []],
    ]);
  });
});

describe('images', () => {
  it('scales an image to the box, keeping its own proportions, and moves below it', () => {
    const w = measuringLayout();
    w.addPage();
    w.image(png(40, 10), 200, 90, { width: 400, height: 100 });
    expect(w.doc.y).toBe(TOP + 50 + 8);
  });

  it('takes the proportions of the box for an image of unknown size', () => {
    const w = measuringLayout();
    w.addPage();
    w.image(png(40, 10), 200, 90, { width: null, height: null });
    expect(w.doc.y).toBe(TOP + 90 + 8);
  });

  it('moves an image that does not fit to the next page', () => {
    const w = near(50);
    w.image(png(40, 10), 200, 90, { width: 400, height: 100 });
    expect([w.pageNumber, w.doc.y]).toEqual([2, TOP + 58]);
  });
});

describe('text', () => {
  it('cuts a fixed line to its width with an ellipsis', async () => {
    const [page] = await bodyPages(dir, 'fixed', async (w) => {
      w.font('regular', 10);
      w.fixed('Department of Examples and Illustrations', w.left, 300, 80);
    });
    expect([/ Department \S*…$/.test(page!), page!.includes('Illustrations')]).toEqual([true, false]);
  });

  it('writes a fixed line that fits whole', async () => {
    const [page] = await bodyPages(dir, 'fixed-whole', async (w) => {
      w.font('regular', 10);
      w.fixed('Short', w.left, 300, 80);
    });
    expect(page!.endsWith(' Short')).toBe(true);
  });

  it('writes a field as its label and value in one paragraph', async () => {
    const [page] = await bodyPages(dir, 'field', async (w) => w.field('Status', 'Implemented'));
    expect(page).toContain('Status: Implemented');
  });

  it('draws tabs as spaces', async () => {
    const [page] = await bodyPages(dir, 'tabs', async (w) => w.paragraph('before\tafter'));
    expect(page).toContain('before after');
  });
});

describe('breathe', () => {
  it('returns at once while the sink keeps up', async () => {
    const w = measuringLayout();
    w.addPage();
    await expect(w.breathe()).resolves.toBeUndefined();
  });
});
