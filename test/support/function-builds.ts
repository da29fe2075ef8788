import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Metafile } from 'esbuild';
import { buildFunction } from '../../infra/bundling.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Outside the repository, so that a bundle loaded from here finds no node_modules above it, as in
 * Lambda (test/support/bundles.ts).
 */
const CACHE = join(tmpdir(), 'aop-function-builds');

/**
 * Everything a function's build reads: the sources under these folders (any change to any of them
 * makes new builds, also one that changes how an import resolves), the lockfiles for the packages,
 * tsconfig.json, and the esbuild that builds.
 */
const SOURCE_DIRS = ['lib', 'functions', 'infra', 'test/support'];
const SOURCE_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'node_modules/.package-lock.json', 'node_modules/esbuild/package.json'];

/** Runs whose sources differ keep their builds this long after their last use, then make room. */
const KEPT_MS = 30 * 60_000;
const KEPT_BUILDS = 4;
/** A build that left its folder without a metafile for this long died with its process. */
const ABANDONED_MS = 10 * 60_000;

let sourcesDir: string | undefined;

/** The folder of the builds of the sources as they are now, named by a hash of them. */
function buildsOfSources(): string {
  if (sourcesDir) return sourcesDir;
  const hash = createHash('sha256').update(ROOT);
  const files = SOURCE_DIRS.flatMap((dir) =>
    readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(ROOT, join(entry.parentPath, entry.name))),
  );
  for (const file of [...files.sort(), ...SOURCE_FILES]) {
    hash.update(`\0${file}\0`);
    if (existsSync(join(ROOT, file))) hash.update(readFileSync(join(ROOT, file)));
  }
  sourcesDir = join(CACHE, hash.digest('hex').slice(0, 24));
  mkdirSync(sourcesDir, { recursive: true });
  const now = new Date();
  utimesSync(sourcesDir, now, now);
  forgetOldBuilds();
  return sourcesDir;
}

function forgetOldBuilds(): void {
  const builds = readdirSync(CACHE)
    .map((name) => ({ path: join(CACHE, name), used: statSync(join(CACHE, name)).mtimeMs }))
    .sort((a, b) => b.used - a.used);
  for (const old of builds.slice(KEPT_BUILDS)) if (Date.now() - old.used > KEPT_MS) rmSync(old.path, { recursive: true, force: true });
}

export interface FunctionBuild {
  /** index.mjs and its chunks, as buildFunction leaves them: what the CDK app deploys. */
  outdir: string;
  metafile: Metafile;
}

/**
 * A function's entry built by buildFunction, the CDK app's build, once for the sources as they
 * are: the infrastructure files that load built functions share each build (bundle-contents and
 * bundle build five of the same functions), within a run and across runs until a source changes.
 * The first file to need a build makes it; a file that needs it meanwhile waits for its metafile.
 */
export async function functionBuild(entry: string): Promise<FunctionBuild> {
  const dir = join(buildsOfSources(), createHash('sha256').update(relative(ROOT, entry)).digest('hex').slice(0, 16));
  const outdir = join(dir, 'code');
  const metafilePath = join(dir, 'metafile.json');
  for (;;) {
    if (existsSync(metafilePath)) return { outdir, metafile: JSON.parse(readFileSync(metafilePath, 'utf8')) as Metafile };
    if (claim(dir)) {
      try {
        const metafile = await buildFunction(entry, outdir);
        writeFileSync(`${metafilePath}.partial`, JSON.stringify(metafile));
        renameSync(`${metafilePath}.partial`, metafilePath);
        return { outdir, metafile };
      } catch (error) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Whether this process is the one to build into dir: mkdir is atomic, across threads and processes alike. */
function claim(dir: string): boolean {
  try {
    mkdirSync(dir);
    return true;
  } catch {
    if (!existsSync(join(dir, 'metafile.json')) && Date.now() - statSync(dir).mtimeMs > ABANDONED_MS) rmSync(dir, { recursive: true, force: true });
    return false;
  }
}
