/**
 * The part of fontkit (pdfkit's font engine; the package ships no types) that the layout uses: a
 * face parsed once, which pdfkit then takes in place of the font's bytes.
 */
declare module 'fontkit' {
  export interface Font {
    readonly postscriptName: string;
  }
  export function create(buffer: Uint8Array): Font;
}
