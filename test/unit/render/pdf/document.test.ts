import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Body, pdfRenderer, renderPdf } from '../../../../lib/render/pdf/document.js';
import { documentModel } from '../../../support/document-model.js';
import { bodyPages, pageTexts } from '../../../support/pdf.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdf-document-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const draft = documentModel({ limit: 1, output: 'draft' });
const final = documentModel({ limit: 1, output: 'final' });
/** Every page of the PDF `body` makes of the model (final, so that no watermark joins the text), title page first, whitespace collapsed. */
async function pages(name: string, body: Body, model = final): Promise<string[]> {
  const path = join(dir, `${name}.pdf`);
  await renderPdf(model, body, createWriteStream(path));
  return (await pageTexts(path)).map((t) => t.replace(/\s+/g, ' ').trim());
}
/** The page (from 1) that holds the heading `title` alone. */
const pageOf = (all: string[], title: string) => all.findIndex((p) => p.endsWith(` ${title}`)) + 1;

describe('pdfRenderer', () => {
  it('declares a PDF', () => {
    const { format, mediaType, extension } = pdfRenderer(async () => undefined);
    expect({ format, mediaType, extension }).toEqual({ format: 'pdf', mediaType: 'application/pdf', extension: 'pdf' });
  });
});

describe('title page', () => {
  it('names the organisation, system, project, marking, release, output, generation and its author', async () => {
    const [title] = await pages('title', async (w) => w.paragraph('Body.'), draft);
    const { organisation, system, project, marking, release, document } = draft;
    expect(title).toContain(
      [
        `Organisation ${organisation.name}`,
        `System ${system.name} (${system.short_code})`,
        `Project ${project.name}`,
        `Classification ${marking.name}`,
        `ISM release ${release.title} (${release.version})`,
        'Output Draft: not approved for release',
      ].join(' '),
    );
    expect(title).toContain(`by ${document.generated_by.name} Generation ${document.generation_id}`);
  });

  it('names no approval for a draft', async () => {
    const [title] = await pages('draft-title', async (w) => w.paragraph('Body.'), draft);
    expect(title).not.toContain('Approved');
  });
});

describe('contents', () => {
  it('lists the level-1 and level-2 headings with the page each starts on, and no level-3 heading', async () => {
    const all = await pages('contents', async (w) => {
      w.heading(1, 'Alpha');
      w.heading(2, 'Beta');
      w.heading(3, 'Gamma');
      w.heading(1, 'Delta');
    });
    expect(all[1]).toMatch(/Contents Alpha 3 Beta 3 Delta 4$/);
  });

  it('numbers the headings right when the contents take more than one page', async () => {
    const titles = Array.from({ length: 90 }, (_, i) => `Section ${String(i).padStart(2, '0')}`);
    const all = await pages('long-contents', async (w) => {
      for (const title of titles) w.heading(1, title);
    });
    const listed = Object.fromEntries(
      [
        ...all
          .slice(1, 4)
          .join(' ')
          .matchAll(/(Section \d\d) (\d+)/g),
      ].map((m) => [m[1], Number(m[2])]),
    );
    expect({ first: listed[titles[0]!], last: listed[titles[89]!] }).toEqual({ first: pageOf(all, titles[0]!), last: pageOf(all, titles[89]!) });
  });

  it('has no contents page for a body without headings', async () => {
    const all = await pages('no-contents', async (w) => w.paragraph('Only a paragraph.'));
    expect({ count: all.length, second: all[1]!.endsWith('Only a paragraph.') }).toEqual({ count: 2, second: true });
  });
});

describe('renderPdf', () => {
  it('prints the page count the measuring pass found on every page', async () => {
    const body = await bodyPages(dir, 'count', async (w) => {
      w.heading(1, 'One');
      w.heading(1, 'Two');
    });
    expect(body.map((p) => /Page (\d+) of (\d+)/.exec(p)?.slice(1))).toEqual([
      ['2', '4'],
      ['3', '4'],
      ['4', '4'],
    ]);
  });

  it('fails with the error of a body that throws in the measuring pass, before writing anything to the output', async () => {
    const out = new PassThrough();
    const written: Buffer[] = [];
    out.on('data', (chunk: Buffer) => written.push(chunk));
    const failing: Body = async () => {
      throw new Error('body failed');
    };
    await expect(renderPdf(draft, failing, out)).rejects.toThrow('body failed');
    expect(written).toEqual([]);
  });
});
