import { randomUUID } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants as zlibConstants } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { describeApi } from '../lib/operations/kernel/api-description.js';
import { OPERATIONS } from '../lib/operations/registry.js';
import { once } from '../lib/domain/validation.js';
import { fontBytes } from '../lib/render/pdf/fonts.js';

/** Build outputs that are derived from the sources and never committed. */
const GENERATED = fileURLToPath(new URL('../.build/', import.meta.url));

/** Writes a generated module through a rename of a file of its own. */
function generated(name: string, text: string): string {
  mkdirSync(GENERATED, { recursive: true });
  const path = join(GENERATED, name);
  const partial = `${path}.${randomUUID()}`;
  writeFileSync(partial, text);
  renameSync(partial, path);
  return path;
}

/**
 * The module esbuild injects into every bundle: it exports API_DESCRIPTION, the free identifier
 * functions/http/meta.ts reads, so the meta function serves the registry's OpenAPI document and
 * routes without bundling a single operation. Bundles that do not read it shake it off. The
 * document goes in Brotli-compressed and is expanded at its first request: as JSON it was most of
 * the meta bundle, past the size limit, and a large literal to parse at every cold start
 * (process.getBuiltinModule, since a bundle that shakes the module off must not keep an import).
 * Written through a rename of a file of its own, since tests and synth may bundle side by side.
 */
function apiDescriptionModule(): string {
  const { document, routes } = describeApi(OPERATIONS);
  const packed = brotliCompressSync(document, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: zlibConstants.BROTLI_MAX_QUALITY } }).toString('base64');
  return generated(
    'api-description.mjs',
    [
      'let document;',
      `export const API_DESCRIPTION = { routes: ${JSON.stringify(routes)}, get document() {`,
      `  return (document ??= process.getBuiltinModule('node:zlib').brotliDecompressSync(Buffer.from(${JSON.stringify(packed)}, 'base64')).toString('utf8'));`,
      '} };',
      '',
    ].join('\n'),
  );
}

/**
 * The module that gives EMBEDDED_FONTS (lib/render/pdf/fonts.ts) the DejaVu fonts as base64, so a
 * bundle that renders PDFs carries its fonts in its code: the same fonts as a laptop, no file to
 * copy into the asset, and pdfkit's standard fonts (which a bundle cannot load) never needed.
 * Only the bundles that render PDFs keep it.
 */
function fontsModule(): string {
  const entries = Object.entries(fontBytes()).map(([name, bytes]) => [name, bytes.toString('base64')]);
  return generated('embedded-fonts.mjs', `export const EMBEDDED_FONTS = ${JSON.stringify(Object.fromEntries(entries))};\n`);
}

/** The modules esbuild injects into every function's bundle (infra/bundling.ts), written once per process. */
export const injectedModules = once(() => [apiDescriptionModule(), fontsModule()]);
