import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions, type Metafile, type Plugin } from 'esbuild';
import { ASSET_SOURCES } from '../lib/console/assets.js';

/**
 * ESM output cannot `require`, yet some dependencies are CommonJS and call it at run time; the
 * banner gives the module a real `require`. The alias avoids a clash with a bundled module that
 * imports `createRequire` itself.
 */
const REQUIRE_BANNER = "import { createRequire as __bannerCreateRequire } from 'node:module'; const require = __bannerCreateRequire(import.meta.url);";

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
 * uses it (`z.toJSONSchema`), and that is built at synth time in Node (apiDescriptionModule, infra/injected-modules.ts), never
 * in a function. zod's schemas import the converter's modules for `.toJSONSchema()`, so each is
 * replaced by a module that exports the same names, each a function that throws, but for the names
 * in ZOD_CONVERTER_KEPT, which come from the real module: its converter parts are then unused and
 * shaken off. A plugin, since an alias cannot reach a package's relative imports.
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

/**
 * Packages whose modules do nothing at import but define things, which their package.json does
 * not say (`sideEffects`): esbuild then keeps the top-level code of every module they import, used
 * or not. jsonc-parser's entry imports its formatter, whose tables of indentation strings (about
 * 1,200 of them, built at import) lib/domain/json-body.ts never uses: about 2 ms of every cold start.
 */
const SIDE_EFFECT_FREE = /[\\/]node_modules[\\/]jsonc-parser[\\/]/;
const RESOLVING_ONCE = Symbol('resolved by sideEffectFree');

/** Marks the modules of the SIDE_EFFECT_FREE packages as such, so that the modules a bundle does not use are left out. */
export const sideEffectFree: Plugin = {
  name: 'side-effect-free',
  setup(build) {
    build.onResolve({ filter: /^jsonc-parser$|^\.\.?\// }, async (args) => {
      if (args.pluginData === RESOLVING_ONCE || (args.path.startsWith('.') && !SIDE_EFFECT_FREE.test(args.importer))) return undefined;
      const resolved = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: RESOLVING_ONCE });
      if (resolved.errors.length > 0 || !SIDE_EFFECT_FREE.test(resolved.path)) return undefined;
      return { path: resolved.path, namespace: resolved.namespace, sideEffects: false };
    });
  },
};

/**
 * The modules of the AWS SDK's core packages that gather a part's files and re-export them
 * (`@aws-sdk/core/protocols`: the JSON, XML and query protocols alike).
 */
const SDK_BARREL = /[\\/]node_modules[\\/]@(?:smithy|aws-sdk)[\\/]core[\\/]dist-es[\\/](?:.+[\\/])?index\.js$/;
const SLICE_NAMESPACE = 'sdk-barrel-slice';
/** `export { a, b as c } from "./x";`, over lines. */
const REEXPORT = /export\s*\{([^}]*)\}\s*from\s*["']([^"']+)["']\s*;?/g;
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The entries of an import or export list, `a` or `a as b`, each as [its name in the module imported from, its name in the other]. */
const entries = (list: string) =>
  list
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const [inner, outer] = entry.split(/\s+as\s+/) as [string, string?];
      return [inner, outer ?? inner] as const;
    });

/**
 * The names a module imports or re-exports from `specifier`, or undefined when it takes the module
 * otherwise than by name (a namespace, a default, `export *`, a bare import).
 */
function namesTaken(source: string, specifier: string): string[] | undefined {
  const quoted = `["']${escapeRegExp(specifier)}["']`;
  const named = [...source.matchAll(new RegExp(`(?:import|export)\\s*\\{([^}]*)\\}\\s*from\\s*${quoted}`, 'g'))];
  const every = [...source.matchAll(new RegExp(`(?:import|export)\\b[^;'"]*?${quoted}`, 'g'))];
  if (named.length === 0 || named.length !== every.length) return undefined;
  return [...new Set(named.flatMap((m) => entries(m[1]!).map(([inner]) => inner)))].sort();
}

/**
 * A barrel's own code, without its re-exports: what it defines itself (a class built from its
 * parts, a bound middleware), imported by every slice that needs one of those names, so that they
 * all share one copy.
 */
const barrelOwnCode = (source: string) => source.replace(REEXPORT, '');

/**
 * esbuild splits code by file, and a file lands in every entry that reaches a module importing
 * it, used there or not: the DynamoDB client, through `@aws-sdk/core/protocols` and the
 * `@smithy/core` barrels, brought S3's REST-XML protocol, its HTTP-binding serde, checksums and
 * stream helpers (39 KB of the 495 that evidence loaded at init) into the cold start of every
 * function that handles files, though only the S3 client, loaded at first use, runs them. Each import of an SDK_BARREL is therefore given a module of its own, a slice, that
 * re-exports only the names it imports, from the files that define them (or from the barrel's own
 * code, barrelOwnCode). The barrels' packages declare their modules free of side effects, so no
 * file skipped this way had anything to do at import; a package that names files with side
 * effects keeps its barrels whole.
 */
export const sdkBarrelSlices: Plugin = {
  name: 'sdk-barrel-slices',
  setup(build) {
    const slices = new Map<string, string>();
    const declared = new Map<string, Promise<unknown>>();
    /**
     * Whether no file the barrel re-exports has side effects, as its package declares them: all
     * free (`false`), or a list of files none of which is under the barrel's folder (no pattern).
     */
    const sliceable = async (barrel: string) => {
      const root = barrel.slice(0, barrel.search(/[\\/]dist-es[\\/]/));
      if (!declared.has(root))
        declared.set(
          root,
          readFile(join(root, 'package.json'), 'utf8').then((text) => (JSON.parse(text) as { sideEffects?: unknown }).sideEffects),
        );
      const sideEffects = await declared.get(root);
      if (sideEffects === false) return true;
      if (!Array.isArray(sideEffects)) return false;
      const folder = `${dirname(barrel)}/`;
      return sideEffects.every((file) => typeof file === 'string' && !file.includes('*') && !join(root, file).startsWith(folder));
    };
    build.onResolve({ filter: /^@(?:smithy|aws-sdk)\/core(?:\/[\w-]+)?$|^\.\.?\// }, async (args) => {
      if (args.kind !== 'import-statement' || args.pluginData === RESOLVING_ONCE) return undefined;
      if (args.path.startsWith('.') && !/[\\/]@(?:smithy|aws-sdk)[\\/]core[\\/]/.test(args.importer)) return undefined;
      const resolved = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: RESOLVING_ONCE });
      if (resolved.errors.length > 0 || !SDK_BARREL.test(resolved.path) || !(await sliceable(resolved.path))) return undefined;
      const importer = args.namespace === SLICE_NAMESPACE ? slices.get(args.importer) : await readFile(args.importer, 'utf8');
      const names = importer === undefined ? undefined : namesTaken(importer, args.path);
      if (!names) return undefined;
      return { path: `${resolved.path}?${names.join(',')}`, namespace: SLICE_NAMESPACE, sideEffects: false };
    });
    build.onResolve({ filter: /^sdk-barrel-own:/ }, (args) => ({
      path: `${args.path.slice('sdk-barrel-own:'.length)}?`,
      namespace: SLICE_NAMESPACE,
      sideEffects: false,
    }));
    build.onLoad({ filter: /.*/, namespace: SLICE_NAMESPACE }, async (args) => {
      const [barrel, wanted] = args.path.split('?') as [string, string];
      const source = await readFile(barrel, 'utf8');
      const from = new Map<string, { inner: string; specifier: string }>();
      for (const m of source.matchAll(REEXPORT)) for (const [inner, outer] of entries(m[1]!)) from.set(outer, { inner, specifier: m[2]! });
      const reexport = (name: string) => {
        const found = from.get(name);
        return found
          ? `export { ${found.inner === name ? name : `${found.inner} as ${name}`} } from ${JSON.stringify(found.specifier)};`
          : `export { ${name} } from ${JSON.stringify(`sdk-barrel-own:${barrel}`)};`;
      };
      const contents = wanted === '' ? barrelOwnCode(source) : wanted.split(',').map(reexport).join('\n');
      slices.set(args.path, contents);
      return { contents, resolveDir: dirname(barrel), loader: 'js' };
    });
  },
};

/**
 * The console's static files beside its bundle, under `assets/` (functions/http/console.ts reads
 * them there): files, not code, so the bundle stays small and Redoc is read only when asked for.
 */
const CONSOLE_ASSET_FILES = Object.entries(ASSET_SOURCES).map(([name, { from }]) => ({ name, from }));
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const CONSOLE_ENTRY = fileURLToPath(new URL('../functions/http/console.ts', import.meta.url));

/**
 * How every function is built (the CDK app, the bench and the tests that load built functions all
 * come here). ESM with code splitting: what a module reaches only through `import()` (an
 * operation's file handling, the S3 client) lands in a chunk of its own that Node loads, parses
 * and evaluates when it is first asked for, not at every cold start. The chunks sit beside
 * index.mjs, so that `import.meta.url` names the same directory from any of them. The AWS SDK is
 * bundled too: the versions pinned in package.json are the ones the tests ran against, whereas the
 * runtime's built-in SDK changes under us.
 */
export function esbuildOptions(entry: string, outdir: string, inject: string[]): BuildOptions & { metafile: true } {
  return {
    entryPoints: { index: entry },
    outdir,
    outExtension: { '.js': '.mjs' },
    chunkNames: '[name]-[hash]',
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    mainFields: ['module', 'main'],
    banner: { js: REQUIRE_BANNER },
    inject,
    alias: ALIASES,
    plugins: [zodWithoutJsonSchema, sideEffectFree, sdkBarrelSlices],
    metafile: true,
    logLevel: 'silent',
  };
}

/**
 * esbuild makes a chunk of every `import()` it reads, also in code it then drops as unused (the
 * SDK's browser paths, a file check that a function's operations never call): the chunks that no
 * kept code imports, directly or through another chunk, are removed with their maps, so that a
 * function deploys only what it can load. Answers the metafile of what is left.
 */
function pruneUnreachable(metafile: Metafile, index: string): Metafile {
  const outputs = metafile.outputs;
  const reached = new Set<string>();
  const visit = (path: string) => {
    if (reached.has(path)) return;
    reached.add(path);
    for (const imported of outputs[path]?.imports ?? []) if (!imported.external) visit(imported.path);
  };
  // Not every output with an entryPoint: each `import()` is an entry point of esbuild's too.
  for (const path of Object.keys(outputs)) if (resolve(path) === index) visit(path);
  for (const path of Object.keys(outputs)) {
    if (path.endsWith('.mjs') && !reached.has(path)) for (const file of [path, `${path}.map`]) rmSync(resolve(file), { force: true });
  }
  const kept = Object.fromEntries(Object.entries(outputs).filter(([path]) => reached.has(path)));
  const held = new Set(Object.values(kept).flatMap((output) => Object.keys(output.inputs)));
  return { outputs: kept, inputs: Object.fromEntries(Object.entries(metafile.inputs).filter(([path]) => held.has(path))) };
}

/**
 * esbuild names a map's sources relative to the map, so from wherever the build ran; a function
 * maps the stacks of the errors it logs (lib/source-stack.ts) and should name `lib/http/pipeline.ts`,
 * not a path climbing out of /var/task: the sources are rewritten relative to the repository.
 */
function sourcesFromRoot(metafile: Metafile): void {
  for (const path of Object.keys(metafile.outputs)) {
    if (!path.endsWith('.mjs')) continue;
    const file = `${resolve(path)}.map`;
    const map = JSON.parse(readFileSync(file, 'utf8')) as { sources: string[] };
    map.sources = map.sources.map((source) => relative(ROOT, resolve(dirname(file), source)));
    writeFileSync(file, JSON.stringify(map));
  }
}

/** What a build leaves in outdir: the reachable code and its maps, and the console's static files beside the console's. */
function finish(entry: string, outdir: string, metafile: Metafile): Metafile {
  if (entry === CONSOLE_ENTRY) {
    mkdirSync(join(outdir, 'assets'), { recursive: true });
    for (const { name, from } of CONSOLE_ASSET_FILES) copyFileSync(join(ROOT, from), join(outdir, 'assets', name));
  }
  const deployed = pruneUnreachable(metafile, resolve(outdir, 'index.mjs'));
  sourcesFromRoot(deployed);
  return deployed;
}

/**
 * Builds a function's entry (a module under functions/) into outdir, index.mjs and its chunks;
 * answers the metafile of what it deploys.
 */
export async function buildFunction(entry: string, outdir: string, inject?: string[]): Promise<Metafile> {
  // Loaded only when not given: the CDK's build child (infra/build-function.ts) gets the modules its
  // parent wrote, instead of loading the operation registry and deriving the API description again
  // (about 1.5 s of CPU in each function's build).
  const injected = inject ?? (await import('./injected-modules.js')).injectedModules();
  const { metafile } = await build(esbuildOptions(entry, outdir, injected));
  return finish(entry, outdir, metafile);
}

/** The code files of a built function, index.mjs and its chunks (not the source maps, not the console's files). */
export async function codeFiles(outdir: string): Promise<string[]> {
  return (await readdir(outdir)).filter((name) => name.endsWith('.mjs')).map((name) => join(outdir, name));
}
