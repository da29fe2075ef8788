import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { mergeManifests, writeManifest } from '../../infra/recorded-commands.js';
import type { CommandManifest } from '../../lib/command-recording.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where each test file leaves its recording; empty when the run checks instead of recording. */
    commandRecordDir: string;
  }
}

/** The projects whose functions' commands make the manifest: a recording must run all their files. */
const RECORDED_PROJECTS = ['integration', 'api'];

/**
 * Global setup of the integration, API and browser projects. With RECORD_COMMANDS=1, the test files'
 * recordings go to one directory per run (the projects' setups share the main process), and the
 * first teardown, after every file has run, merges them into infra/recorded-commands.json.
 */
export default function setup(project: TestProject): (() => Promise<void>) | undefined {
  if (process.env.RECORD_COMMANDS !== '1') {
    project.provide('commandRecordDir', '');
    return undefined;
  }
  const dir = join(tmpdir(), `aop-recorded-commands-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  project.provide('commandRecordDir', dir);
  return async () => {
    // The other project's teardown came first and wrote the manifest.
    if (!existsSync(dir)) return;
    const files = readdirSync(dir, { withFileTypes: true }).filter((f) => f.isFile());
    if (files.length === 0) return;
    const recordings = files.map((f) => JSON.parse(readFileSync(join(dir, f.name), 'utf8')) as CommandManifest);
    rmSync(dir, { recursive: true, force: true });
    await refuseIncompleteRun(project);
    writeManifest(mergeManifests(recordings));
  };
}

/** A partial or failed run would drop what the files it skipped exercise: it writes nothing. */
async function refuseIncompleteRun(project: TestProject): Promise<void> {
  const { vitest } = project;
  const ran = new Set(vitest.state.getFilepaths());
  const expected = (
    await Promise.all(vitest.projects.filter((p) => RECORDED_PROJECTS.includes(p.name)).map(async (p) => (await p.globTestFiles()).testFiles))
  ).flat();
  const skipped = expected.filter((file) => !ran.has(file));
  const failed = vitest.state.getFailedFilepaths();
  if (skipped.length > 0 || failed.length > 0 || vitest.projects.filter((p) => RECORDED_PROJECTS.includes(p.name)).length < RECORDED_PROJECTS.length) {
    // Vitest reports a teardown error but would still exit 0 for a run whose tests all passed.
    process.exitCode = 1;
    throw new Error(
      `infra/recorded-commands.json was not written: recording needs every file of the ${RECORDED_PROJECTS.join(' and ')} projects to run and pass (${skipped.length} not run, ${failed.length} failed). Run \`npm run record-commands\`.`,
    );
  }
}
