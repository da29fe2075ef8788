import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The DejaVu faces every PDF uses, by the name the layout selects them with. */
export const FONT_FILES = {
  regular: 'DejaVuSans.ttf',
  bold: 'DejaVuSans-Bold.ttf',
  italic: 'DejaVuSans-Oblique.ttf',
  mono: 'DejaVuSansMono.ttf',
} as const;
export type FontName = keyof typeof FONT_FILES;

/**
 * A bundled function carries the font bytes in its code (base64, injected by infra/injected-modules.ts), so
 * a Lambda embeds the very fonts a laptop does and reads no file. From source they come from the
 * dejavu-fonts-ttf package.
 */
declare const EMBEDDED_FONTS: Record<FontName, string> | undefined;

let fonts: Record<FontName, Buffer> | undefined;

function fromPackage(file: string): Buffer {
  return readFileSync(createRequire(import.meta.url).resolve(`dejavu-fonts-ttf/ttf/${file}`));
}

export function fontBytes(): Record<FontName, Buffer> {
  if (fonts) return fonts;
  const embedded = typeof EMBEDDED_FONTS === 'undefined' ? undefined : EMBEDDED_FONTS;
  const entries = (Object.keys(FONT_FILES) as FontName[]).map((name) => [
    name,
    embedded ? Buffer.from(embedded[name], 'base64') : fromPackage(FONT_FILES[name]),
  ]);
  fonts = Object.fromEntries(entries) as Record<FontName, Buffer>;
  return fonts;
}
