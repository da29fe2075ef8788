import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentKey } from '../../../../lib/domain/documents.js';
import { PDF_RENDERERS } from '../../../../lib/render/pdf/index.js';
import { documentModel } from '../../../support/document-model.js';
import { fonts, inkInBody, isTagged, pageCount, pageTexts, rasterise, renderTo } from '../../../support/pdf.js';

/** Enough controls for several guidelines and pages, few enough to render in a moment. */
const LIMIT = 150;
const WATERMARK = /D\s*R\s*A\s*F\s*T/;

/** The sections each template lists in its contents, whatever the model. */
const SECTIONS: Record<keyof typeof PDF_RENDERERS, string[]> = {
  ssp: [
    'Document control',
    'Version history',
    'Approval',
    'System and project',
    'Roles and contacts',
    'Network diagram',
    'Inherited and common controls',
    'Related plans',
    'Implementation summary',
    'Controls not applicable',
  ],
  'e8-assessment': [
    'Assessment coverage',
    'Maturity summary',
    'Assessment context',
    'Methodology',
    'Maturity by strategy',
    'Patch applications',
    'Regular backups',
    'Findings',
  ],
  'security-assessment-report': [
    'Executive summary',
    'Recommendation to the authorising officer',
    'Scope and boundary',
    'Methodology',
    'Assessor details',
    'Compliance summary',
    'Findings',
    'Effective controls',
    'Exclusions',
    'Evidence cited',
    'Registers',
    'Sign-off',
  ],
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdf-documents-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe.each(Object.entries(PDF_RENDERERS) as [keyof typeof PDF_RENDERERS, (typeof PDF_RENDERERS)[keyof typeof PDF_RENDERERS]][])('%s', (key, renderer) => {
  let draft: string;
  let final: string;
  let pages: number;
  const model = (output: 'draft' | 'final') => documentModel({ key: key as DocumentKey, output, limit: key === 'e8-assessment' ? undefined : LIMIT });

  beforeAll(async () => {
    draft = await renderTo(renderer, model('draft'), dir, `${key}-draft`);
    final = await renderTo(renderer, model('final'), dir, `${key}-final`);
    pages = await pageCount(draft);
  }, 60_000);

  it('has several pages, each numbered "Page N of M" with M the page count', async () => {
    expect(pages).toBeGreaterThanOrEqual(4);
    expect(pages).toBeLessThan(LIMIT);
    const texts = await pageTexts(draft);
    expect(texts).toHaveLength(pages);
    expect(texts.filter((text, i) => text.includes(`Page ${i + 1} of ${pages}`))).toHaveLength(pages);
  });

  it('is tagged, draft and final, with its language set', async () => {
    expect(await isTagged(draft)).toBe(true);
    expect(await isTagged(final)).toBe(true);
    const bytes = await readFile(final, 'latin1');
    expect(bytes).toContain('/Lang (en-AU)');
    expect(bytes).toContain('/StructTreeRoot');
  });

  it('renders its first three pages with content between header and footer', async () => {
    const pngs = await rasterise(draft, await mkdtemp(join(dir, `${key}-png-`)), 1, 3);
    expect(pngs).toHaveLength(3);
    for (const png of pngs) expect(await inkInBody(png)).toBeGreaterThan(0.002);
  });

  it('carries the protective marking at the top and the bottom of every page', async () => {
    const marking = model('draft').marking.name;
    for (const text of await pageTexts(draft, true)) {
      const lines = text
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean);
      expect(lines[0]).toBe(marking);
      expect(lines.at(-1)).toBe(marking);
    }
  });

  it('watermarks every page of a draft', async () => {
    const texts = await pageTexts(draft);
    expect(texts.filter((t) => WATERMARK.test(t))).toHaveLength(pages);
  });

  it('carries no watermark in final output, and names the approver and time on the title page', async () => {
    const texts = await pageTexts(final);
    expect(texts.some((t) => WATERMARK.test(t))).toBe(false);
    expect(texts[0]).toMatch(/Approved 25\sNovember\s2026\s01:02\sUTC by Alex Assessor/);
  });

  it('lists its sections in the contents with the page each starts on', async () => {
    const raw = (await pageTexts(draft)).map((t) => t.replace(/\s+/g, ' '));
    const entries = (await pageTexts(draft, true))[1]!
      .split('\n')
      .map((line) => /^\s*(\S.*?)\s{2,}(\d+)$/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ title: m[1]!, page: Number(m[2]) }));
    expect(entries.map((e) => e.title)).toEqual(expect.arrayContaining(SECTIONS[key]));
    for (const entry of entries) expect(raw[entry.page - 1], entry.title).toContain(entry.title);
  });

  it('bookmarks its sections in the outline', async () => {
    const pdf = (await readFile(draft)).toString('latin1');
    expect(pdf).toMatch(/\/Outlines \d+ 0 R/);
    for (const section of ['Contents', ...SECTIONS[key]]) expect(pdf).toContain(`/Title (${section})`);
  });

  it('embeds the DejaVu fonts and uses no other font', async () => {
    const used = await fonts(draft);
    expect(used.length).toBeGreaterThan(0);
    for (const [name, embedded] of used) {
      expect(name).toMatch(/^[A-Z]{6}\+DejaVuSans/);
      expect(embedded).toBe(true);
    }
  });
});
