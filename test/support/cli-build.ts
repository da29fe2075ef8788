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
 * The operator CLI compiled once per run, by the root's global setup (global-setup.ts) for the unit
 * and API projects, for the tests that run it as an operator does, a process per command. Under `node --import tsx` each command
 * spent 1.6 s of CPU loading tsx and compiling the sources again; compiled, 0.8 s. Packages stay
 * outside the bundle (bundling them took 3 s more to build), which lies in the repository
 * (.build/) so that Node finds them in node_modules.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  mkdirSync(join(ROOT, '.build'), { recursive: true });
  const dir = mkdtempSync(join(ROOT, '.build', 'operator-cli-'));
  const outfile = join(dir, 'admin.mjs');
  await build({
    entryPoints: [join(ROOT, 'lib/admin/main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    plugins: [sourceUrls],
    logLevel: 'silent',
  });
  project.provide('operatorCliPath', outfile);
  return () => rmSync(dir, { recursive: true, force: true });
}
