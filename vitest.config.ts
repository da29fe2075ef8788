import { defineConfig } from 'vitest/config';

const env = { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', LOG_LEVEL: 'ERROR' };

/** Every command a function issues in these projects is recorded and checked against infra/recorded-commands.json. */
const recordedCommands = { globalSetup: ['test/support/recorded-commands-setup.ts'], setupFiles: ['test/support/record-commands.ts'] };

/**
 * Five projects (DESIGN.md section 9). Integration, API, browser and infrastructure tests (the
 * bundled functions) share one DynamoDB Local, one s3rver and one SQS emulator, started once per
 * run by the root's global setup; each test file works in a table of its own. Browser tests drive
 * the console in Debian's Chromium (test/support/browser.ts).
 */
export default defineConfig({
  test: {
    env,
    globalSetup: ['test/support/global-setup.ts'],
    // vitest's default is one worker fewer than the cores: on a 2-core machine one file at a time.
    // Each file that reaches the emulators works in a table, bucket and queues of its own and spends
    // most of its time waiting on DynamoDB Local, so files run side by side, more of them than cores.
    maxWorkers: 4,
    // `npm test` turns coverage on (test/run.ts); the floor only rises.
    coverage: {
      provider: 'v8',
      include: ['lib/**/*.ts', 'functions/**/*.ts'],
      reporter: ['text-summary', 'json-summary'],
      thresholds: { lines: 0, statements: 0, functions: 0, branches: 0 },
    },
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'], env } },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: recordedCommands.globalSetup,
          setupFiles: recordedCommands.setupFiles,
          testTimeout: 30_000,
          hookTimeout: 60_000,
          env,
        },
      },
      {
        test: {
          name: 'api',
          include: ['test/api/**/*.test.ts'],
          globalSetup: recordedCommands.globalSetup,
          setupFiles: recordedCommands.setupFiles,
          testTimeout: 60_000,
          hookTimeout: 60_000,
          env,
        },
      },
      {
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          globalSetup: recordedCommands.globalSetup,
          setupFiles: recordedCommands.setupFiles,
          testTimeout: 60_000,
          hookTimeout: 60_000,
          env,
        },
      },
      {
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          env,
        },
      },
    ],
  },
});
