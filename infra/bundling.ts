import type { BuildOptions } from 'esbuild';
import { OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';

/**
 * ESM output cannot `require`, yet some dependencies are CommonJS and call it at run time; the
 * banner gives the module a real `require`. The alias avoids a clash with a bundled module that
 * imports `createRequire` itself.
 */
const REQUIRE_BANNER =
  "import { createRequire as __bannerCreateRequire } from 'node:module'; const require = __bannerCreateRequire(import.meta.url);";

export const BUNDLE = {
  target: 'node22',
  minify: true,
  sourceMap: true,
  mainFields: ['module', 'main'],
  banner: REQUIRE_BANNER,
} as const;

/**
 * Bundling of every function. The AWS SDK is bundled too: the versions pinned in package.json are
 * the ones the tests ran against, whereas the runtime's built-in SDK changes under us.
 */
export function lambdaBundling(): BundlingOptions {
  return {
    format: OutputFormat.ESM,
    target: BUNDLE.target,
    minify: BUNDLE.minify,
    sourceMap: BUNDLE.sourceMap,
    sourcesContent: false,
    mainFields: [...BUNDLE.mainFields],
    banner: BUNDLE.banner,
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
    logLevel: 'silent',
  };
}
