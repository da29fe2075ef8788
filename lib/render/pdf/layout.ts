import { create, type Font } from 'fontkit';
import PDFDocument, { type OutlineItem, type StructureElement, type StructureOptions } from 'pdfkit';
import type { DocumentModel } from '../../domain/document-model.js';
import { once } from '../../domain/validation.js';
import { type FontName, fontBytes } from './fonts.js';
import { plain } from './format.js';

export const COLOURS = { text: '#1a1a1a', muted: '#5f6368', rule: '#c8ccd0', shade: '#eef1f4', marking: '#b00020', accent: '#1f4e79' } as const;

const A4: [number, number] = [595.28, 841.89];
const MARGINS = { top: 74, bottom: 70, left: 56, right: 56 };
/** Past this many bytes waiting for the sink, the layout waits for it: the PDF is never held whole. */
const HIGH_WATER = 1 << 20;

export interface Heading {
  level: 1 | 2 | 3;
  title: string;
  page: number;
  dest: string;
  toc: boolean;
}

/**
 * Each face parsed once per process. Given bytes, pdfkit parses the font again for every document,
 * and every PDF is laid out twice (measuring, then output), throwing fontkit's glyph and layout
 * caches away each time: a warm render of a 120-control SSP took 630 to 640 ms of CPU instead of
 * 465 ms, one of 1,000 controls 2.43 s instead of 2.18 s (2026-11-27). Each document still embeds a
 * subset of its own.
 */
const fontFaces = once((): [FontName, Font][] => (Object.entries(fontBytes()) as [FontName, Buffer][]).map(([name, bytes]) => [name, create(bytes)]));

/** What the measuring pass learnt, which the output pass prints: the page count and each heading's page. */
export interface Pagination {
  totalPages: number;
  headingPages: number[];
}

/**
 * One pass over one PDF: page chrome (marking top and bottom, running header, page numbers,
 * DRAFT watermark) drawn as each page is added, flowing text, headings that feed the table of
 * contents and the outline. The measuring pass runs with `pagination` null.
 */
export class PdfLayout {
  readonly doc: PDFDocument;
  readonly headings: Heading[] = [];
  pageNumber = 0;
  private current: { font: FontName; size: number; colour: string } = { font: 'regular', size: 10, colour: COLOURS.text };
  private readonly outlines: OutlineItem[] = [];
  /** The open structure elements of the tagged PDF, the document's root first: what is drawn now is tagged in the last. */
  private readonly parents: StructureElement[];

  constructor(
    readonly model: DocumentModel,
    readonly pagination: Pagination | null,
  ) {
    this.doc = new PDFDocument({
      size: A4,
      margins: MARGINS,
      font: null,
      autoFirstPage: false,
      compress: pagination !== null,
      // Tagged, with a language and the title shown in the window bar: what PDF/UA asks first, so that
      // a screen reader reads headings, tables and figures rather than a stream of glyphs.
      pdfVersion: '1.7',
      tagged: true,
      lang: 'en-AU',
      displayTitle: true,
      info: {
        Title: model.document.title,
        Author: model.organisation.name,
        Subject: `${model.system.name}: ${model.project.name}`,
        Creator: 'Assessment Operations API',
        // Fixed, like the file identifier derived from it: the same model gives the same bytes.
        CreationDate: new Date(model.document.generated_at),
      },
    });
    for (const [name, face] of fontFaces()) this.doc.registerFont(name, face);
    const root = this.doc.struct('Document');
    this.doc.addStructure(root);
    this.parents = [root];
    this.doc.on('pageAdded', () => this.isolated(() => this.artifact('Pagination', () => this.chrome())));
    // The watermark goes over a page once its content is drawn, so that no image or shading hides it;
    // pdfkit breaks pages on its own inside flowing text, so its addPage is where a page ends.
    const addPage = this.doc.addPage.bind(this.doc);
    this.doc.addPage = (options) => {
      if (this.pageNumber > 0) this.isolated(() => this.artifact('Pagination', () => this.watermark()));
      return addPage(options);
    };
  }

  /** Ends the last page; the document is complete once pdfkit has written it out. */
  end(): void {
    if (this.pageNumber > 0) this.artifact('Pagination', () => this.watermark());
    this.doc.end();
  }

  /**
   * Draws `draw` as the content of one new structure element (a paragraph, a heading, a figure)
   * under the open one; content that flows onto the next page stays in the same element.
   */
  tag(type: string, draw: () => void, options: StructureOptions = {}): void {
    this.parent.add(this.doc.struct(type, options, draw));
  }

  /** An element (a table, a row, a cell) attached under the open one, for the caller to fill and end. */
  element(type: string, options: StructureOptions = {}): StructureElement {
    const element = this.doc.struct(type, options);
    this.parent.add(element);
    return element;
  }

  /** A grouping element (a table, a table of contents) that everything `draw` tags goes into. */
  group(type: string, draw: () => void): void {
    const element = this.element(type);
    this.parents.push(element);
    try {
      draw();
    } finally {
      this.parents.pop();
      element.end();
    }
  }

  /**
   * Draws what is not content (page furniture, rules, shading, a repeated table header) as an
   * artifact that a screen reader skips. Any content sequence still open on the page is closed
   * around it and reopened after, so that the artifact never sits inside tagged content.
   */
  artifact(type: 'Pagination' | 'Layout', draw: () => void): void {
    const open = this.doc.endPageMarkings(this.doc.page);
    this.doc.markContent('Artifact', { type });
    draw();
    this.doc.endMarkedContent();
    this.doc.initPageMarkings(open);
  }

  private get parent(): StructureElement {
    return this.parents.at(-1) as StructureElement;
  }

  get width(): number {
    return A4[0] - MARGINS.left - MARGINS.right;
  }

  get left(): number {
    return MARGINS.left;
  }

  get bottom(): number {
    return this.doc.page.maxY();
  }

  get remaining(): number {
    return this.bottom - this.doc.y;
  }

  font(font: FontName, size: number, colour: string = COLOURS.text): this {
    this.current = { font, size, colour };
    this.doc.font(font, size).fillColor(colour);
    return this;
  }

  lineHeight(font: FontName, size: number): number {
    this.doc.font(font, size);
    const height = this.doc.currentLineHeight(true);
    this.doc.font(this.current.font, this.current.size);
    return height;
  }

  addPage(): void {
    this.doc.addPage();
  }

  /** Starts a new page unless `height` points still fit on this one. */
  ensure(height: number): void {
    if (this.remaining < height) this.addPage();
  }

  gap(points: number): void {
    if (this.doc.y + points < this.bottom) this.doc.y += points;
  }

  /** A thin rule across the text width, between one control's block and the next. */
  separator(before: number): void {
    this.gap(before);
    this.rule(0.3);
    this.gap(2);
  }

  /** A rule across the text width at the current position, drawn as an artifact. */
  rule(lineWidth: number): void {
    this.artifact('Layout', () =>
      this.doc
        .lineWidth(lineWidth)
        .strokeColor(COLOURS.rule)
        .moveTo(this.left, this.doc.y)
        .lineTo(this.left + this.width, this.doc.y)
        .stroke(),
    );
  }

  /** Flowing text from the left margin (or `indent`), breaking onto new pages as needed. */
  paragraph(text: string, font: FontName = 'regular', size = 9.5, options: { colour?: string; indent?: number; after?: number } = {}): void {
    const indent = options.indent ?? 0;
    this.font(font, size, options.colour);
    this.tag('P', () => this.doc.text(plain(text), this.left + indent, this.doc.y, { width: this.width - indent, lineGap: 1.5 }));
    this.doc.x = this.left;
    this.gap(options.after ?? 4);
  }

  /** A bold label and its value as one flowing paragraph. */
  field(label: string, value: string, options: { indent?: number; size?: number } = {}): void {
    const indent = options.indent ?? 0;
    const size = options.size ?? 9.5;
    this.tag('P', () => {
      this.font('bold', size);
      this.doc.text(`${label}: `, this.left + indent, this.doc.y, { width: this.width - indent, continued: true, lineGap: 1.5 });
      this.font('regular', size);
      this.doc.text(plain(value), { width: this.width - indent, lineGap: 1.5 });
    });
    this.doc.x = this.left;
    this.gap(3);
  }

  /**
   * A heading, kept with what follows it. Level 1 opens a page. Every heading is a bookmark of
   * the outline; those with `toc` are listed in the table of contents.
   */
  heading(level: 1 | 2 | 3, title: string, options: { toc?: boolean; newPage?: boolean } = {}): void {
    const size = level === 1 ? 17 : level === 2 ? 13 : 11;
    if (options.newPage ?? level === 1) {
      if (this.doc.y > MARGINS.top + 1) this.addPage();
    } else {
      this.ensure(this.lineHeight('bold', size) * 2 + 60);
    }
    const dest = `h${this.headings.length}`;
    this.headings.push({ level, title, page: this.pageNumber, dest, toc: options.toc ?? level < 3 });
    if (this.pagination) {
      this.doc.addNamedDestination(dest);
      const parent = level === 1 ? this.doc.outline : (this.outlines[level - 2] ?? this.doc.outline);
      this.outlines[level - 1] = parent.addItem(title);
      this.outlines.length = level;
    }
    this.gap(level === 1 ? 0 : 6);
    this.font('bold', size, COLOURS.accent);
    this.tag(`H${level}`, () => this.doc.text(title, this.left, this.doc.y, { width: this.width }));
    this.doc.x = this.left;
    this.gap(level === 1 ? 8 : 4);
  }

  /** An image centred on the text width, tagged as a figure whose alternative text is `alt`. */
  image(bytes: Uint8Array, maxWidth: number, maxHeight: number, intrinsic: { width: number | null; height: number | null }, alt = 'Image'): void {
    const ratio = intrinsic.width && intrinsic.height ? intrinsic.height / intrinsic.width : maxHeight / maxWidth;
    const width = Math.min(maxWidth, maxHeight / ratio);
    const height = width * ratio;
    this.ensure(height + 8);
    const x = this.left + (this.width - width) / 2;
    const y = this.doc.y;
    this.tag('Figure', () => this.doc.image(Buffer.from(bytes), x, y, { fit: [width, height] }), {
      alt,
      bbox: [x, y, x + width, y + height],
      placement: 'Block',
    });
    this.doc.y += height + 8;
    this.doc.x = this.left;
  }

  /** Waits while the sink is behind, so that a slow upload never makes the whole PDF wait in memory. */
  async breathe(): Promise<void> {
    const doc = this.doc;
    if (doc.readableLength < HIGH_WATER) return;
    await new Promise<void>((resolve) => {
      const check = () => {
        if (doc.readableLength >= HIGH_WATER / 4) return;
        doc.off('data', check);
        resolve();
      };
      doc.on('data', check);
    });
  }

  /** One line of text at a fixed place that never breaks a page; cut with an ellipsis to `width`. */
  fixed(text: string, x: number, y: number, width: number, align: 'left' | 'center' | 'right' = 'left'): void {
    const line = truncate(this.doc, text, width);
    const used = this.doc.widthOfString(line);
    const at = align === 'left' ? x : align === 'right' ? x + width - used : x + (width - used) / 2;
    this.doc.text(line, at, y, { lineBreak: false });
  }

  /**
   * Runs page furniture drawn in the middle of flowing text. pdfkit applies the options of a
   * `continued` text call, and its line wrapper, to every later text call until the run ends; the
   * furniture must not join that run.
   */
  private isolated(draw: () => void): void {
    // pdfkit's text run state is internal and untyped: the cast names the two fields this saves and restores.
    const state = this.doc as unknown as { _wrapper: unknown; _textOptions: unknown };
    const { _wrapper, _textOptions } = state;
    state._wrapper = null;
    state._textOptions = null;
    try {
      draw();
    } finally {
      state._wrapper = _wrapper;
      state._textOptions = _textOptions;
    }
  }

  private chrome(): void {
    this.pageNumber += 1;
    const { doc, model } = this;
    const { width, height } = doc.page;
    const saved = { ...this.current, x: doc.x, y: doc.y };
    doc.save();
    this.font('bold', 10, COLOURS.marking);
    this.fixed(model.marking.name, 0, 26, width, 'center');
    this.fixed(model.marking.name, 0, height - 34, width, 'center');
    this.font('regular', 7.5, COLOURS.muted);
    const half = (width - MARGINS.left - MARGINS.right) / 2 - 6;
    this.fixed(model.document.title, MARGINS.left, 44, half);
    this.fixed(`${model.organisation.name} · ${model.system.name}`, width / 2 + 6, 44, half, 'right');
    const total = this.pagination ? ` of ${this.pagination.totalPages}` : '';
    this.fixed(`${model.project.name} · ${model.document.output === 'draft' ? 'Draft' : 'Final'}`, MARGINS.left, height - 52, half);
    this.fixed(`Page ${this.pageNumber}${total}`, width / 2 + 6, height - 52, half, 'right');
    doc.lineWidth(0.5).strokeColor(COLOURS.rule);
    doc
      .moveTo(MARGINS.left, 56)
      .lineTo(width - MARGINS.right, 56)
      .stroke();
    doc
      .moveTo(MARGINS.left, height - 58)
      .lineTo(width - MARGINS.right, height - 58)
      .stroke();
    doc.restore();
    this.font(saved.font, saved.size, saved.colour);
    doc.x = saved.x;
    doc.y = saved.y;
  }

  private watermark(): void {
    const { doc, model } = this;
    if (model.document.output !== 'draft' || !model.options.draft_watermark) return;
    const { width, height } = doc.page;
    const saved = { ...this.current, x: doc.x, y: doc.y };
    doc.save();
    doc.rotate(-50, { origin: [width / 2, height / 2] });
    this.font('bold', 130);
    doc.fillColor('#9aa0a6', 0.18);
    const text = 'DRAFT';
    doc.text(text, (width - doc.widthOfString(text)) / 2, height / 2 - doc.currentLineHeight() / 2, { lineBreak: false });
    doc.restore();
    this.font(saved.font, saved.size, saved.colour);
    doc.x = saved.x;
    doc.y = saved.y;
  }
}

/** The longest start of `text` that fits `width` in the current font, with an ellipsis when cut. */
function truncate(doc: PDFDocument, text: string, width: number): string {
  if (doc.widthOfString(text) <= width) return text;
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (doc.widthOfString(`${text.slice(0, mid)}…`) <= width) low = mid;
    else high = mid - 1;
  }
  return `${text.slice(0, low).trimEnd()}…`;
}
