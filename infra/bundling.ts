import { randomUUID } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { brotliCompressSync, constants as zlibConstants } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import type { BuildOptions, Plugin } from 'esbuild';
import { OutputFormat, type BundlingOptions, type ICommandHooks } from 'aws-cdk-lib/aws-lambda-nodejs';
import { ASSET_SOURCES } from '../lib/console/assets.js';
import { describeApi } from '../lib/operations/kernel/api-description.js';
import { OPERATIONS } from '../lib/operations/registry.js';
import { fontBytes } from '../lib/render/pdf/fonts.js';

/**
 * ESM output cannot `require`, yet some dependencies are CommonJS and call it at run time; the
 * banner gives the module a real `require`. The alias avoids a clash with a bundled module that
 * imports `createRequire` itself.
 */
const REQUIRE_BANNER = "import { createRequire as __bannerCreateRequire } from 'node:module'; const require = __bannerCreateRequire(import.meta.url);";

export const BUNDLE = {
  target: 'node24',
  minify: true,
  sourceMap: true,
  mainFields: ['module', 'main'],
  banner: REQUIRE_BANNER,
} as const;

/**
 * Modules the bundles replace: the default credential chain, reduced to the environment Lambda
 * provides, and `debug`, which prints nothing in a function (see each module).
 */
const ALIASES = {
  '@aws-sdk/credential-provider-node': fileURLToPath(new URL('../lib/lambda-credentials.ts', import.meta.url)),
  debug: fileURLToPath(new URL('./quiet-debug.ts', import.meta.url)),
  '@smithy/core/event-streams': fileURLToPath(new URL('./no-event-streams.ts', import.meta.url)),
};

/** zod's JSON Schema converter, which zod's schemas reach through relative imports of its own. */
const ZOD_CONVERTER = /(^|\/)(to-json-schema|json-schema-processors|json-schema-generator)\.js$/;
const IN_ZOD = /[\\/]node_modules[\\/]zod[\\/]/;
/** What zod's schemas use of the converter's modules at run time: the bounds getters (`.minLength`, `.maxValue`, ...) read aggregateChecks. */
const ZOD_CONVERTER_KEPT = new Set(['aggregateChecks']);
const ZOD_CONVERTER_NAMESPACE = 'zod-json-schema-converter';

/** The names a zod ES module exports: `export function|const|class name` and `export { a, b as c }`. */
function exportedNames(source: string): string[] {
  const declared = [...source.matchAll(/^export\s+(?:async\s+)?(?:function\*?|const|let|var|class)\s+([\w$]+)/gm)].map((m) => m[1]!);
  // The last word of each entry: `b` of `a as b`.
  const exportedAs = (entry: string) => /([\w$]+)\s*$/.exec(entry)?.[1] ?? [];
  const listed = [...source.matchAll(/^export\s*\{([^}]*)\}\s*;/gm)].flatMap((m) => m[1]!.split(',').flatMap(exportedAs));
  return [...declared, ...listed];
}

/**
 * Leaves zod's JSON Schema converter (about 18 KB) out of the bundles: only the API description
 * uses it (`z.toJSONSchema`), and that is built at synth time in Node (apiDescriptionModule), never
 * in a function. zod's schemas import the converter's modules for `.toJSONSchema()`, so each is
 * replaced by a module that exports the same names, each a function that throws, but for the names
 * in ZOD_CONVERTER_KEPT, which come from the real module: its converter parts are then unused and
 * shaken off. A plugin, since an alias cannot reach a package's relative imports; the CDK
 * bundling (lambdaBundling) runs the esbuild command line, which takes no plugins.
 */
export const zodWithoutJsonSchema: Plugin = {
  name: 'zod-without-json-schema',
  setup(build) {
    build.onResolve({ filter: ZOD_CONVERTER }, (args) =>
      args.namespace === 'file' && IN_ZOD.test(args.importer) ? { path: join(args.resolveDir, args.path), namespace: ZOD_CONVERTER_NAMESPACE } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: ZOD_CONVERTER_NAMESPACE }, async (args) => {
      const names = exportedNames(await readFile(args.path, 'utf8'));
      const kept = names.filter((name) => ZOD_CONVERTER_KEPT.has(name));
      const removed = names.filter((name) => !ZOD_CONVERTER_KEPT.has(name));
      const contents = [
        ...(kept.length > 0 ? [`export { ${kept.join(', ')} } from ${JSON.stringify(args.path)};`] : []),
        // A function rather than an arrow, so that `new JSONSchemaGenerator()` throws this error too.
        `function removed() { throw new Error("zod's JSON Schema converter is not bundled (infra/bundling.ts): the API description is built at synth time"); }`,
        ...(removed.length > 0 ? [`export const ${removed.map((name) => `${name} = removed`).join(', ')};`] : []),
      ].join('\n');
      return { contents, resolveDir: dirname(args.path), loader: 'js' };
    });
  },
};

/** Build outputs that are derived from the sources and never committed. */
const GENERATED = fileURLToPath(new URL('../.build/', import.meta.url));
let description: string | undefined;
let fonts: string | undefined;

/** Writes a generated module once per process, through a rename of a file of its own. */
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
 * Written once per process, through a rename of a file of its own, since tests and synth may
 * bundle side by side.
 */
export function apiDescriptionModule(): string {
  if (description) return description;
  const { document, routes } = describeApi(OPERATIONS);
  const packed = brotliCompressSync(document, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: zlibConstants.BROTLI_MAX_QUALITY } }).toString('base64');
  description = generated(
    'api-description.mjs',
    [
      'let document;',
      `export const API_DESCRIPTION = { routes: ${JSON.stringify(routes)}, get document() {`,
      `  return (document ??= process.getBuiltinModule('node:zlib').brotliDecompressSync(Buffer.from(${JSON.stringify(packed)}, 'base64')).toString('utf8'));`,
      '} };',
      '',
    ].join('\n'),
  );
  return description;
}

/**
 * The module that gives EMBEDDED_FONTS (lib/render/pdf/fonts.ts) the DejaVu fonts as base64, so a
 * bundle that renders PDFs carries its fonts in its code: the same fonts as a laptop, no file to
 * copy into the asset, and pdfkit's standard fonts (which a bundle cannot load) never needed.
 * Only the bundles that render PDFs keep it.
 */
export function fontsModule(): string {
  if (fonts) return fonts;
  const entries = Object.entries(fontBytes()).map(([name, bytes]) => [name, bytes.toString('base64')]);
  fonts = generated('embedded-fonts.mjs', `export const EMBEDDED_FONTS = ${JSON.stringify(Object.fromEntries(entries))};\n`);
  return fonts;
}

/**
 * The console's static files beside its bundle, under `assets/` (functions/http/console.ts reads
 * them there): files, not code, so the bundle stays small and Redoc is read only when asked for.
 */
export const CONSOLE_ASSET_FILES = Object.entries(ASSET_SOURCES).map(([name, { from }]) => ({ name, from }));

const consoleAssetHooks: ICommandHooks = {
  beforeBundling: () => [],
  beforeInstall: () => [],
  afterBundling: (inputDir, outputDir) => [
    `mkdir -p "${outputDir}/assets"`,
    ...CONSOLE_ASSET_FILES.map(({ name, from }) => `cp "${inputDir}/${from}" "${outputDir}/assets/${name}"`),
  ],
};

/**
 * Bundling of every function. The AWS SDK is bundled too: the versions pinned in package.json are
 * the ones the tests ran against, whereas the runtime's built-in SDK changes under us.
 */
export function lambdaBundling(options: { consoleAssets?: boolean } = {}): BundlingOptions {
  return {
    ...(options.consoleAssets ? { commandHooks: consoleAssetHooks } : {}),
    format: OutputFormat.ESM,
    target: BUNDLE.target,
    minify: BUNDLE.minify,
    sourceMap: BUNDLE.sourceMap,
    sourcesContent: false,
    mainFields: [...BUNDLE.mainFields],
    banner: BUNDLE.banner,
    inject: [apiDescriptionModule(), fontsModule()],
    esbuildArgs: { '--alias': Object.entries(ALIASES).map(([module, path]) => `${module}=${path}`) },
    bundleAwsSDK: true,
  };
}

/** The same bundle through the esbuild API, for the test that loads a built function. */
export function esbuildOptions(entry: string, outfile: string): BuildOptions {
  return {
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: BUNDLE.target,
    minify: BUNDLE.minify,
    sourcemap: BUNDLE.sourceMap,
    sourcesContent: false,
    mainFields: [...BUNDLE.mainFields],
    banner: { js: BUNDLE.banner },
    inject: [apiDescriptionModule(), fontsModule()],
    alias: ALIASES,
    plugins: [zodWithoutJsonSchema],
    logLevel: 'silent',
  };
}
