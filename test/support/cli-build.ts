import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The operator CLI (lib/admin/main.ts) compiled for this run, for test/support/cli.ts. */
    operatorCliPath: string;
  }
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * A module's own URL wherever it is bundled: the CLI finds the sample catalogue and the fonts
 * beside its sources (lib/catalogue/files.ts, lib/render/pdf/fonts.ts), not beside the bundle.
 */
const sourceUrls: Plugin = {
  name: 'source-urls',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => ({
      contents: readFileSync(args.path, 'utf8').replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)),
      loader: 'ts',
    }));
  },
};

/**
 * ESM output cannot `require`, yet some bundled dependencies are CommonJS and call it at run time
 * (as in infra/bundling.ts); the alias avoids a clash with a bundled module's own `createRequire`.
 */
const REQUIRE_BANNER = "import { createRequire as __bannerCreateRequire } from 'node:module'; const require = __bannerCreateRequire(import.meta.url);";

/**
 * The operator CLI compiled once per run, by the root's global setup (global-setup.ts) for the unit
 * and API projects, for the tests that run it as an operator does, a process per command. Under
 * `node --import tsx` each command spent 1.6 s of CPU loading tsx and compiling the sources again. With the packages outside the
 * bundle a command still spent 0.55 to 0.7 s, most of it in Node resolving and loading the AWS
 * SDK's and zod's hundreds of files; bundled with them (their ES module builds, as the functions
 * are), 0.25 to 0.3 s, for about 1 s more of esbuild's CPU once per run. Split (ESM), each
 * command's module (lib/admin/main.ts imports it on demand) and what only it needs stay in chunks
 * of their own, so a command loads no other command's code. The bundle lies in the repository
 * (.build/) so that s3rver and the SQS emulator, which the CLI never starts, stay packages that
 * Node finds in node_modules.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  mkdirSync(join(ROOT, '.build'), { recursive: true });
  const dir = mkdtempSync(join(ROOT, '.build', 'operator-cli-'));
  await build({
    entryPoints: { admin: join(ROOT, 'lib/admin/main.ts') },
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    mainFields: ['module', 'main'],
    banner: { js: REQUIRE_BANNER },
    external: ['s3rver', 'local-aws-sqs'],
    plugins: [sourceUrls],
    logLevel: 'silent',
  });
  project.provide('operatorCliPath', join(dir, 'admin.mjs'));
  return () => rmSync(dir, { recursive: true, force: true });
}
