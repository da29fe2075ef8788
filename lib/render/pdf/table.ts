import type { default as PDFDocument, StructureElement } from 'pdfkit';
import type { FontName } from './fonts.js';
import { plain } from './format.js';
import { COLOURS, type PdfLayout } from './layout.js';

export interface Column {
  header: string;
  /** A share of the text width; the shares of a table add up to 1. */
  share: number;
  font?: FontName;
}

const PAD = 3.5;
const SIZE = 8;

/**
 * The share of the text width a date column takes: the longest date (28 September 2026) on one
 * line at the table's size. Dates are joined by no-break spaces, so a narrower column cuts one mid-word.
 */
export const DATE_SHARE = 0.185;

/**
 * The lines `text` takes in `width` points in the document's current font. Words longer than a
 * line (hashes, identifiers, URLs) are cut where they overflow instead of running out of the cell.
 */
export function wrap(doc: PDFDocument, text: string, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of plain(text).split('\n')) {
    let line = '';
    for (const word of paragraph.split(/ +/)) {
      const candidate = line ? `${line} ${word}` : word;
      if (doc.widthOfString(candidate) <= width) {
        line = candidate;
        continue;
      }
      if (line) lines.push(line);
      line = word;
      while (doc.widthOfString(line) > width && line.length > 1) {
        let cut = line.length - 1;
        while (cut > 1 && doc.widthOfString(line.slice(0, cut)) > width) cut -= 1;
        lines.push(line.slice(0, cut));
        line = line.slice(cut);
      }
    }
    lines.push(line);
  }
  return lines;
}

/**
 * A table whose header row repeats on every page it spans. A row that fits on a page is never
 * split: it moves to the next page whole. A row taller than a page continues line by line on
 * the next, under the repeated header. Tagged as a table: the first header row as column
 * headers, each row's cells as data cells (a row split over pages stays one row), the repeated
 * headers, rules and shading as artifacts.
 */
export function table(w: PdfLayout, columns: Column[], rows: string[][], options: { header?: boolean } = {}): void {
  w.group('Table', () => body(w, columns, rows, options.header ?? true));
  w.font('regular', 9.5);
  w.gap(8);
}

function body(w: PdfLayout, columns: Column[], rows: string[][], showHeader: boolean): void {
  const { doc } = w;
  const widths = columns.map((c) => c.share * w.width);
  const lineHeight = w.lineHeight('regular', SIZE);
  const headerLines = showHeader
    ? cellLines(
        w,
        columns.map((c) => ({ text: c.header, font: 'bold' as const })),
        widths,
      )
    : [];
  const headerCount = Math.max(0, ...headerLines.map((l) => l.length));
  const headerHeight = showHeader ? headerCount * lineHeight + 2 * PAD : 0;

  let headerTagged = false;
  const drawHeader = () => {
    if (!showHeader) return;
    w.artifact('Layout', () => doc.rect(w.left, doc.y, w.width, headerHeight).fill(COLOURS.shade));
    if (headerTagged) w.artifact('Pagination', () => drawCells(w, headerLines, widths, 'bold', 0, headerCount, lineHeight));
    else {
      const { cells, end } = row(w, headerLines.length, 'TH');
      drawCells(w, headerLines, widths, 'bold', 0, headerCount, lineHeight, undefined, (i, draw) => cells[i]?.add(draw));
      end();
      headerTagged = true;
    }
    doc.y += headerHeight;
    w.rule(0.4);
  };

  const first = rows[0] ? cellLines(w, cellsOf(columns, rows[0]), widths) : [];
  const firstHeight = Math.min(Math.max(1, ...first.map((l) => l.length)), 3) * lineHeight + 2 * PAD;
  w.ensure(headerHeight + firstHeight);
  drawHeader();

  for (const values of rows) {
    const lines = cellLines(w, cellsOf(columns, values), widths);
    const count = Math.max(1, ...lines.map((l) => l.length));
    const height = count * lineHeight + 2 * PAD;
    const pageRoom = w.bottom - doc.page.margins.top - headerHeight;
    if (height > w.remaining && height <= pageRoom) {
      w.addPage();
      drawHeader();
    }
    const { cells, end } = row(w, lines.length, 'TD');
    let from = 0;
    while (from < count) {
      let fit = Math.floor((w.remaining - 2 * PAD) / lineHeight);
      if (fit < 2 && from + fit < count) {
        w.addPage();
        drawHeader();
        fit = Math.floor((w.remaining - 2 * PAD) / lineHeight);
      }
      const to = Math.min(count, from + fit);
      drawCells(w, lines, widths, null, from, to, lineHeight, columns, (i, draw) => cells[i]?.add(draw));
      doc.y += (to - from) * lineHeight + 2 * PAD;
      w.rule(0.4);
      from = to;
      if (from < count) {
        w.addPage();
        drawHeader();
      }
    }
    end();
  }
  doc.x = w.left;
}

/**
 * A row element of the open table with `count` cell elements of `type`, for the parts of the row to
 * fill; `end` closes it once they have (ending a row ends its cells).
 */
function row(w: PdfLayout, count: number, type: 'TH' | 'TD'): { cells: StructureElement[]; end: () => void } {
  const tr = w.element('TR');
  const cells = Array.from({ length: count }, () => {
    const cell = w.doc.struct(type, type === 'TH' ? { scope: 'Column' } : {});
    tr.add(cell);
    return cell;
  });
  return { cells, end: () => tr.end() };
}

function cellsOf(columns: Column[], row: string[]): { text: string; font: FontName }[] {
  return columns.map((c, i) => ({ text: row[i] ?? '', font: c.font ?? 'regular' }));
}

function cellLines(w: PdfLayout, cells: { text: string; font: FontName }[], widths: number[]): string[][] {
  return cells.map((cell, i) => {
    w.font(cell.font, SIZE);
    return wrap(w.doc, cell.text, (widths[i] ?? 0) - 2 * PAD);
  });
}

/** Draws lines `from` to `to` of each cell; `mark` tags each cell's drawing (an artifact draws them bare). */
function drawCells(
  w: PdfLayout,
  lines: string[][],
  widths: number[],
  font: FontName | null,
  from: number,
  to: number,
  lineHeight: number,
  columns?: Column[],
  mark: (cell: number, draw: () => void) => void = (_cell, draw) => draw(),
): void {
  const { doc } = w;
  const start = doc.y;
  const top = start + PAD;
  let x = w.left;
  lines.forEach((cell, i) => {
    const left = x;
    w.font(font ?? columns?.[i]?.font ?? 'regular', SIZE);
    const last = Math.min(to, cell.length);
    if (from < last) {
      mark(i, () => {
        for (let l = from; l < last; l++) doc.text(cell[l] ?? '', left + PAD, top + (l - from) * lineHeight, { lineBreak: false });
      });
    }
    x += widths[i] ?? 0;
  });
  doc.y = start;
}
