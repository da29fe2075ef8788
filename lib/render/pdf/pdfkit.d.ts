/**
 * The part of pdfkit's API the renderers use (the package ships no types and @types/pdfkit is not
 * a dependency). Only what lib/render/pdf calls is declared, so a call outside it fails the typecheck.
 */
declare module 'pdfkit' {
  import { Readable } from 'node:stream';

  export interface PageMargins {
    top: number;
    bottom: number;
    left: number;
    right: number;
  }

  export interface PDFPage {
    markings: Marking[];
    width: number;
    height: number;
    margins: PageMargins;
    maxY(): number;
  }

  export interface TextOptions {
    width?: number;
    height?: number;
    align?: 'left' | 'center' | 'right' | 'justify';
    lineBreak?: boolean;
    lineGap?: number;
    paragraphGap?: number;
    indent?: number;
    characterSpacing?: number;
    continued?: boolean;
    goTo?: string;
    ellipsis?: boolean | string;
    features?: string[];
  }

  export interface ImageOptions {
    fit?: [number, number];
    width?: number;
    height?: number;
    align?: 'left' | 'center' | 'right';
    valign?: 'top' | 'center' | 'bottom';
  }

  /** A node of the tagged PDF's structure tree; a function child is content drawn and marked for it at once. */
  export interface StructureElement {
    add(child: StructureElement | (() => void)): this;
    end(): void;
  }

  export interface StructureOptions {
    alt?: string;
    lang?: string;
    title?: string;
    actual?: string;
    /** The area a figure takes, [left, top, right, bottom] in page points from the top left. */
    bbox?: [number, number, number, number];
    placement?: 'Block' | 'Inline';
    scope?: 'Row' | 'Column' | 'Both';
  }

  /** An open marked-content sequence of the current page, as pdfkit carries it across a page break. */
  export interface Marking {
    tag: string;
  }

  export interface OutlineItem {
    addItem(title: string, options?: { expanded?: boolean }): OutlineItem;
  }

  export interface DocumentOptions {
    size?: string | [number, number];
    margins?: PageMargins;
    /** Null loads no default font: the standard fonts are never read (they break in bundles). */
    font?: string | Buffer | null;
    bufferPages?: boolean;
    autoFirstPage?: boolean;
    compress?: boolean;
    lang?: string;
    displayTitle?: boolean;
    /** Marks the PDF as tagged (MarkInfo) and gives it a structure tree root. */
    tagged?: boolean;
    pdfVersion?: '1.3' | '1.4' | '1.5' | '1.6' | '1.7';
    info?: { Title?: string; Author?: string; Subject?: string; Keywords?: string; CreationDate?: Date; Creator?: string; Producer?: string };
  }

  class PDFDocument extends Readable {
    constructor(options?: DocumentOptions);
    page: PDFPage;
    x: number;
    y: number;
    outline: OutlineItem;
    addPage(options?: DocumentOptions): this;
    registerFont(name: string, src: Buffer | import('fontkit').Font): this;
    font(name: string, size?: number): this;
    fontSize(size: number): this;
    currentLineHeight(includeGap?: boolean): number;
    text(text: string, x?: number, y?: number, options?: TextOptions): this;
    text(text: string, options?: TextOptions): this;
    heightOfString(text: string, options?: TextOptions): number;
    widthOfString(text: string, options?: TextOptions): number;
    moveDown(lines?: number): this;
    fillColor(color: string, opacity?: number): this;
    strokeColor(color: string, opacity?: number): this;
    fillOpacity(opacity: number): this;
    lineWidth(width: number): this;
    image(src: Buffer, x?: number, y?: number, options?: ImageOptions): this;
    rect(x: number, y: number, w: number, h: number): this;
    moveTo(x: number, y: number): this;
    lineTo(x: number, y: number): this;
    fill(color?: string): this;
    stroke(color?: string): this;
    save(): this;
    restore(): this;
    rotate(angle: number, options?: { origin?: [number, number] }): this;
    addNamedDestination(name: string): void;
    struct(type: string, options?: StructureOptions, children?: () => void): StructureElement;
    addStructure(element: StructureElement): this;
    markContent(tag: string, options?: { type?: 'Pagination' | 'Layout' | 'Page' | 'Background' } | null): this;
    endMarkedContent(): this;
    endPageMarkings(page: PDFPage): Marking[];
    initPageMarkings(markings: Marking[]): void;
    end(): void;
  }

  export default PDFDocument;
}
