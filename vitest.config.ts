import { defineConfig } from 'vitest/config';
import LongestFirst from './test/support/sequencer.js';

const env = { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', LOG_LEVEL: 'ERROR' };

/** With WORK_METER_DIR set, each file leaves there its requests, emulator commands and CPU (test/support/work-meter.ts). */
const workMeter = process.env.WORK_METER_DIR ? ['test/support/work-meter.ts'] : [];

/** Every command a function issues in these projects is recorded and checked against infra/recorded-commands.json. */
const recordedCommands = { globalSetup: ['test/support/recorded-commands-setup.ts'], setupFiles: ['test/support/record-commands.ts', ...workMeter] };

/** Puts process.env back after each file and forgets what lib built from it, for the projects whose files share their worker's modules. */
const restoreEnv = 'test/support/restore-env.ts';

/** Drops each file's table at the file's end, for the projects whose files work in the shared DynamoDB Local (test/support/services.ts). */
const dropTables = 'test/support/drop-tables.ts';

/**
 * vitest's default is one worker fewer than the cores: on a 2-core machine one file at a time, which
 * ran the suite serially. Each file that reaches the emulators works in a table, bucket and queues of
 * its own and spends most of its time waiting on DynamoDB Local, so these files run four side by side,
 * after the unit tests (projects with different maxWorkers need their own group).
 */
const emulatorFiles = { maxWorkers: 4, sequence: { groupOrder: 1 } };

/**
 * Five projects (DESIGN.md section 9). Integration, API, browser and infrastructure tests (the
 * bundled functions) share one DynamoDB Local, one s3rver and one SQS emulator, started once per
 * run by the root's global setup, which also compiles the operator CLI once for the unit and API
 * tests that run it; each test file works in a table of its own. Browser tests drive
 * the console in Debian's Chromium (test/support/browser.ts).
 */
export default defineConfig({
  test: {
    env,
    globalSetup: ['test/support/global-setup.ts'],
    sequence: { sequencer: LongestFirst },
    // Each project has a Vite server of its own, which transformed every lib module it reached again. With
    // the file-system module cache a project reads the module another project (or an earlier run) wrote,
    // keyed by the file's content and the transform config. npm test from an empty cache, as CI runs it:
    // 6 min 46 s and 723 s of CPU, against 7 min 21 s and 795 s without the cache (2026-11-27, builds cached).
    experimental: { fsModuleCache: true },
    // The root runs no file itself (its projects do): its include only joins coverage's exclusions,
    // which every file the coverage reports name is matched against, and vitest's default there, an
    // extglob, took two thirds of that matching (2.6 s of the main process in a run of the API files).
    include: ['test/**/*.test.ts'],
    // `npm test` turns coverage on (test/run.ts). The floor only rises: the whole suite's figure of
    // 2026-11-27, stop 37 (statements 94.2 %, branches 87.7 %, functions 95.6 %, lines 95.3 %, in three runs), less about a point for paths that timing decides (sweeps, retries).
    coverage: {
      provider: 'v8',
      include: ['lib/**/*.ts', 'functions/**/*.ts'],
      reporter: ['text-summary', 'json-summary'],
      reportOnFailure: true,
      thresholds: { lines: 94.5, statements: 93, functions: 94.5, branches: 86.5 },
    },
    projects: [
      // PDF rendering and OSCAL schema validation are CPU-bound: one file per core, and under coverage
      // on a busy machine they take longer than vitest's 5 s default. Most unit files spend far longer
      // importing lib than testing it (import 132 s, tests 9 s for the 62 files of store, http and
      // operations), so the files of a worker share its modules (isolate: false; restore-env.ts puts
      // process.env back after each file), in threads, which start cheaper than forks: those 62 files
      // took 10 s of CPU instead of 47 s. A file that mocks a module (vi.mock) mocks one no other
      // unit file imports.
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          pool: 'threads',
          isolate: false,
          maxWorkers: 2,
          testTimeout: 30_000,
          setupFiles: [restoreEnv],
          env,
        },
      },
      // The files of a worker share its modules (isolate: false, in forks), as the API files do: with
      // coverage, the 22 files took 82 to 91 s of CPU instead of 98 to 106 s (import phase 23 s, not 42 to
      // 45 s; 2026-11-27, interleaved runs). No integration file mocks a module: a crash, a failed write or
      // another writer's race goes into the middleware of the file's own DynamoDB or S3 client, matched
      // by the command's input (test/support/aws-faults.ts), and restore-env.ts forgets those clients
      // at the file's end. The repositories-* files use no table: they only set, and put back, settings.
      {
        test: {
          name: 'integration',
          ...emulatorFiles,
          include: ['test/integration/**/*.test.ts'],
          isolate: false,
          globalSetup: recordedCommands.globalSetup,
          setupFiles: [restoreEnv, dropTables, ...recordedCommands.setupFiles],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          env,
        },
      },
      // Each API file imported lib again (4 to 6 s of CPU under coverage) before its first test, so the
      // files of a worker share its modules (isolate: false), as the unit files do: with coverage, the
      // 67 files took 440 to 513 s of CPU (with DynamoDB Local's) instead of 713 to 757 s (import phase 56 s, not
      // 560 s), in forks, vitest's default (threads took 596 s: four in one process). Every API file
      // points the process at a table, bucket and queues of its own when it starts (useTestServices),
      // and restore-env.ts puts process.env back after it and forgets the settings, clients and
      // token-hash key lib built from it. No API file mocks a module: a test that needs a fault adds
      // it to the AWS client's middleware, which the next file's client does not have.
      {
        test: {
          name: 'api',
          ...emulatorFiles,
          include: ['test/api/**/*.test.ts'],
          isolate: false,
          globalSetup: recordedCommands.globalSetup,
          setupFiles: [restoreEnv, dropTables, ...recordedCommands.setupFiles],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          env,
        },
      },
      {
        test: {
          name: 'browser',
          ...emulatorFiles,
          include: ['test/browser/**/*.test.ts'],
          globalSetup: recordedCommands.globalSetup,
          setupFiles: [dropTables, ...recordedCommands.setupFiles],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          env,
        },
      },
      {
        test: {
          name: 'infra',
          ...emulatorFiles,
          include: ['test/infra/**/*.test.ts'],
          // Each file spent about 4 s of CPU importing aws-cdk-lib, the stacks and the registry before
          // its first test: the files of a worker share them, as the unit files do (restore-env.ts).
          pool: 'threads',
          isolate: false,
          setupFiles: [restoreEnv, dropTables],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // CDK's built-in CloudFormation validation compiles a WebAssembly rule engine at the first
          // synth of each process (5 to 9 s of CPU per file that synthesizes, measured) and, as the app leaves
          // @aws-cdk/core:validateAgainstDefaultRules off, can only warn: no test could see it. cdk-nag,
          // the app's own validation plugin, still runs at every synth.
          env: { ...env, CDK_VALIDATION: 'false' },
        },
      },
    ],
  },
});
