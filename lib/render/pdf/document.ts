import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { DocumentModel } from '../../domain/document-model.js';
import type { Renderer } from '../renderer.js';
import { COLOURS, type Heading, type Pagination, PdfLayout } from './layout.js';
import { formatTimestamp } from './format.js';
import { table, wrap } from './table.js';

export type Body = (w: PdfLayout) => Promise<void>;

/** A PDF template of the catalogue: its title page and contents come from here, its body from `body`. */
export function pdfRenderer(body: Body): Renderer {
  return { format: 'pdf', mediaType: 'application/pdf', extension: 'pdf', render: (model, out) => renderPdf(model, body, out) };
}

/**
 * Two passes. The first lays the document out into a sink that drops it, to learn the page of
 * every heading and the page count; the second writes it to `out` as pdfkit produces it, with the
 * contents, "Page N of M" and the outline filled in. The contents take the same pages in both
 * passes since their length does not depend on the numbers printed in them.
 */
export async function renderPdf(model: DocumentModel, body: Body, out: Writable): Promise<void> {
  const measured = await pass(model, null, [], body, discard());
  const entries = measured.headings.filter((h) => h.toc);
  const contentsPages = (await pass(model, null, entries, null, discard())).pageNumber - 1;
  const pagination: Pagination = {
    totalPages: measured.pageNumber + contentsPages,
    headingPages: measured.headings.map((h) => h.page + contentsPages),
  };
  await pass(model, pagination, entries, body, out);
}

async function pass(model: DocumentModel, pagination: Pagination | null, entries: Heading[], body: Body | null, sink: Writable): Promise<PdfLayout> {
  const w = new PdfLayout(model, pagination);
  const written = pipeline(w.doc, sink);
  try {
    titlePage(w);
    if (entries.length) contents(w, entries);
    if (body) {
      w.addPage();
      await body(w);
    }
    w.end();
  } catch (error) {
    w.doc.destroy(error as Error);
    await written.catch(() => undefined);
    throw error;
  }
  await written;
  return w;
}

function discard(): Writable {
  return new Writable({ write: (_chunk, _encoding, done) => done() });
}

function titlePage(w: PdfLayout): void {
  const { model, doc } = w;
  w.addPage();
  doc.y = 110;
  const logo = model.images.logo;
  if (logo) w.image(logo.bytes, 200, 90, logo, `Logo of ${model.organisation.name}`);
  doc.y = Math.max(doc.y + 20, 230);
  w.font('bold', 26, COLOURS.accent);
  w.tag('H1', () => doc.text(model.document.title, w.left, doc.y, { width: w.width, align: 'center' }));
  w.gap(10);
  w.font('regular', 14);
  w.tag('P', () => doc.text(model.organisation.name, w.left, doc.y, { width: w.width, align: 'center' }));
  w.font('regular', 12, COLOURS.muted);
  w.tag('P', () => doc.text(`${model.system.name} (${model.system.short_code}) · ${model.project.name}`, w.left, doc.y, { width: w.width, align: 'center' }));
  w.gap(36);
  const { document } = model;
  const rows: string[][] = [
    ['Organisation', model.organisation.name],
    ['System', `${model.system.name} (${model.system.short_code})`],
    ['Project', model.project.name],
    ['Classification', model.marking.name],
    ['ISM release', `${model.release.title} (${model.release.version})`],
    ['Output', document.output === 'final' ? 'Final' : 'Draft: not approved for release'],
    ['Generated', `${formatTimestamp(document.generated_at)} by ${document.generated_by.name}`],
  ];
  if (document.output === 'final' && document.approved_by && document.approved_at) {
    rows.push(['Approved', `${formatTimestamp(document.approved_at)} by ${document.approved_by.name}`]);
  }
  rows.push(['Generation', document.generation_id]);
  table(
    w,
    [
      { header: '', share: 0.28, font: 'bold' },
      { header: '', share: 0.72 },
    ],
    rows,
    { header: false },
  );
}

function contents(w: PdfLayout, entries: Heading[]): void {
  const { doc, pagination } = w;
  w.addPage();
  if (pagination) doc.outline.addItem('Contents');
  w.font('bold', 17, COLOURS.accent);
  w.tag('H1', () => doc.text('Contents', w.left, doc.y, { width: w.width }));
  w.gap(10);
  w.group('TOC', () => {
    for (const entry of entries) contentsEntry(w, entry);
  });
  doc.x = w.left;
}

/** One entry of the contents, a link to its heading with the page it starts on, as a TOCI of the TOC. */
function contentsEntry(w: PdfLayout, entry: Heading): void {
  const { doc, pagination } = w;
  const numberWidth = 36;
  const indent = (entry.level - 1) * 14;
  const font = entry.level === 1 ? 'bold' : 'regular';
  const size = entry.level === 1 ? 10 : 9;
  w.font(font, size);
  const lines = wrap(doc, entry.title, w.width - indent - numberWidth - 8);
  const lineHeight = doc.currentLineHeight(true) + 1;
  if (entry.level === 1) w.ensure(lineHeight * (lines.length + 1) + 4);
  if (entry.level === 1) w.gap(4);
  const page = pagination?.headingPages[Number(entry.dest.slice(1))];
  const item = w.element('TOCI');
  lines.forEach((line, i) => {
    w.ensure(lineHeight);
    const y = doc.y;
    w.font(font, size);
    item.add(() => {
      doc.text(line, w.left + indent, y, { lineBreak: false, goTo: entry.dest });
      if (i === lines.length - 1 && page !== undefined) w.fixed(String(page), w.left + w.width - numberWidth, y, numberWidth, 'right');
    });
    doc.y = y + lineHeight;
  });
  item.end();
}
