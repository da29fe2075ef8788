import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPdf } from '../../../../lib/render/pdf/document.js';
import { type Column, table } from '../../../../lib/render/pdf/table.js';
import { documentModel } from '../../../support/document-model.js';
import { pageTexts } from '../../../support/pdf.js';

const COLUMNS: Column[] = [
  { header: 'Key', share: 0.2, font: 'bold' },
  { header: 'Text', share: 0.5 },
  { header: 'Digest', share: 0.3, font: 'mono' },
];
const HEADER = 'Key Text Digest';
const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}w${i}`).join(' ');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdf-table-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The body pages (after the title page) of a PDF whose body is one table, whitespace collapsed. */
async function tablePages(name: string, rows: string[][]): Promise<string[]> {
  const path = join(dir, `${name}.pdf`);
  await renderPdf(documentModel({ limit: 1, output: 'final' }), async (w) => table(w, COLUMNS, rows), createWriteStream(path));
  return (await pageTexts(path)).slice(1).map((t) => t.replace(/\s+/g, ' '));
}

describe('PDF tables', () => {
  it('repeat the header row on every page they span', async () => {
    const pages = await tablePages(
      'header',
      Array.from({ length: 200 }, (_, i) => [`row${i}`, words(12, `r${i}`), 'f'.repeat(64)]),
    );
    expect(pages.length).toBeGreaterThan(3);
    for (const page of pages) expect(page).toContain(HEADER);
  });

  it('move a row that does not fit whole to the next page', async () => {
    const rows = Array.from({ length: 120 }, (_, i) => [`row${i}`, words(i % 5 === 0 ? 60 : 8, `r${i}`), '']);
    const pages = await tablePages('whole-rows', rows);
    rows.forEach(([key, text]) => {
      const first = text!.split(' ')[0]!;
      const last = text!.split(' ').at(-1)!;
      const on = pages.filter((p) => p.includes(`${first} `) || p.includes(`${last} `) || p.endsWith(last));
      expect(on, key).toHaveLength(1);
    });
  });

  it('continue a row taller than a page on the next pages, under the header, losing no text', async () => {
    const long = words(2000, 'long');
    const pages = await tablePages('tall-row', [
      ['before', 'short', ''],
      ['tall', long, ''],
      ['after', 'short', ''],
    ]);
    expect(pages.length).toBeGreaterThan(2);
    for (const page of pages) expect(page).toContain(HEADER);
    const text = pages.join(' ');
    const found = [...text.matchAll(/longw(\d+)/g)].map((m) => Number(m[1]));
    expect(found).toEqual(Array.from({ length: 2000 }, (_, i) => i));
  });

  it('wrap a word longer than its cell inside the cell', async () => {
    const digest = '0123456789abcdef'.repeat(4);
    const pages = await tablePages('long-word', [['key', 'text', digest]]);
    expect(pages.join(' ').replace(/ /g, '')).toContain(digest);
    expect(pages.join(' ')).not.toContain(digest);
  });
});
