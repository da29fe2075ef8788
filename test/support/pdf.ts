import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { inflateSync } from 'node:zlib';
import type { DocumentModel } from '../../lib/domain/document-model.js';
import { type Body, renderPdf } from '../../lib/render/pdf/document.js';
import { type Pagination, PdfLayout } from '../../lib/render/pdf/layout.js';
import type { Renderer } from '../../lib/render/renderer.js';
import { documentModel } from './document-model.js';
import { missingPoppler, type POPPLER_TOOLS } from './poppler.js';

const exec = promisify(execFile);

/** A poppler tool's output; a missing tool is the one-line explanation, not a spawn error. */
async function run(tool: (typeof POPPLER_TOOLS)[number], args: string[]): Promise<string> {
  try {
    return (await exec(tool, args, { maxBuffer: 64 << 20 })).stdout;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(missingPoppler([tool]));
    throw error;
  }
}

/** Renders `model` into `dir` and answers the file's path. */
export async function renderTo(renderer: Renderer, model: DocumentModel, dir: string, name: string): Promise<string> {
  const path = join(dir, `${name}.pdf`);
  await renderer.render(model, createWriteStream(path));
  return path;
}

/** The page count, from poppler's pdfinfo. */
export async function pageCount(pdf: string): Promise<number> {
  const stdout = await run('pdfinfo', [pdf]);
  return Number(/^Pages:\s+(\d+)/m.exec(stdout)?.[1]);
}

/** Whether pdfinfo reports the PDF tagged (a structure tree a screen reader reads). */
export async function isTagged(pdf: string): Promise<boolean> {
  const stdout = await run('pdfinfo', [pdf]);
  return /^Tagged:\s+yes$/m.test(stdout);
}

/** The text of each page, in content order (pdftotext -raw), so that rotated text stays in one place. */
export async function pageTexts(pdf: string, layout = false): Promise<string[]> {
  const stdout = await run('pdftotext', [layout ? '-layout' : '-raw', pdf, '-']);
  return stdout.split('\f').slice(0, -1);
}

/** The fonts the PDF uses (pdffonts), as [name, embedded] pairs. */
export async function fonts(pdf: string): Promise<[string, boolean][]> {
  const stdout = await run('pdffonts', [pdf]);
  return stdout
    .split('\n')
    .slice(2)
    .filter(Boolean)
    .map((line) => {
      const columns = line.trim().split(/\s+/);
      return [columns[0]!, columns.at(-5) === 'yes'];
    });
}

/** The images the PDF draws (pdfimages -list), as [page, width, height]. */
export async function images(pdf: string): Promise<[number, number, number][]> {
  const stdout = await run('pdfimages', ['-list', pdf]);
  return stdout
    .split('\n')
    .slice(2)
    .filter(Boolean)
    .map((line) => {
      const [page, , , width, height] = line.trim().split(/\s+/).map(Number);
      return [page!, width!, height!];
    });
}

/** Rasterises pages `first` to `last` at 40 dpi with pdftoppm and answers the PNG files, in page order. */
export async function rasterise(pdf: string, dir: string, first: number, last: number): Promise<string[]> {
  const prefix = join(dir, 'page');
  await run('pdftoppm', ['-r', '40', '-f', String(first), '-l', String(last), '-png', pdf, prefix]);
  return (await readdir(dir))
    .filter((f) => f.startsWith('page') && f.endsWith('.png'))
    .sort()
    .map((f) => join(dir, f));
}

/**
 * The share of pixels darker than mid-grey in the band between the running header and footer:
 * the body text of the page (the watermark is far lighter than that). Decodes the 8-bit
 * greyscale or RGB(A) PNG that pdftoppm writes.
 */
export async function inkInBody(png: string): Promise<number> {
  const { width, height, channels, pixels } = decodePng(await readFile(png));
  let dark = 0;
  const top = Math.floor(height * 0.1);
  const bottom = Math.floor(height * 0.9);
  for (let y = top; y < bottom; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * channels;
      const luminance = channels >= 3 ? (pixels[at]! + pixels[at + 1]! + pixels[at + 2]!) / 3 : pixels[at]!;
      if (luminance < 128) dark += 1;
    }
  }
  return dark / (width * (bottom - top));
}

function decodePng(file: Buffer): { width: number; height: number; channels: number; pixels: Uint8Array } {
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const data: Buffer[] = [];
  while (offset < file.length) {
    const length = file.readUInt32BE(offset);
    const type = file.toString('latin1', offset + 4, offset + 8);
    const body = file.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      if (body[8] !== 8) throw new Error('only 8-bit PNGs are decoded');
      channels = ({ 0: 1, 2: 3, 4: 2, 6: 4 } as Record<number, number>)[body[9]!] ?? 0;
    } else if (type === 'IDAT') data.push(body);
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const pixels = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    for (let x = 0; x < stride; x++) {
      const value = raw[y * (stride + 1) + 1 + x]!;
      const left = x >= channels ? pixels[y * stride + x - channels]! : 0;
      const up = y > 0 ? pixels[(y - 1) * stride + x]! : 0;
      const upLeft = y > 0 && x >= channels ? pixels[(y - 1) * stride + x - channels]! : 0;
      pixels[y * stride + x] = (value + predict(filter, left, up, upLeft)) & 0xff;
    }
  }
  return { width, height, channels, pixels };
}

function predict(filter: number, left: number, up: number, upLeft: number): number {
  if (filter === 1) return left;
  if (filter === 2) return up;
  if (filter === 3) return Math.floor((left + up) / 2);
  if (filter === 4) {
    const p = left + up - upLeft;
    const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
    return pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
  }
  return 0;
}

/**
 * The text of the body pages (after the title page) of a PDF of a one-control model whose body is
 * `body`, rendered into `dir`, whitespace collapsed: for tests of what a layout helper writes.
 */
export async function bodyPages(dir: string, name: string, body: Body, model: DocumentModel = documentModel({ limit: 1, output: 'final' })): Promise<string[]> {
  const path = join(dir, `${name}.pdf`);
  await renderPdf(model, body, createWriteStream(path));
  return (await pageTexts(path)).slice(1).map((t) => t.replace(/\s+/g, ' ').trim());
}

/** A layout whose output is dropped, for tests that read positions, pages and headings from its state. */
export function measuringLayout(pagination: Pagination | null = null, model: DocumentModel = documentModel({ limit: 1, output: 'final' })): PdfLayout {
  const w = new PdfLayout(model, pagination);
  w.doc.resume();
  return w;
}
