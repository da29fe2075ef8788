import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { popplerProblem } from './support/poppler.js';

/**
 * `npm test`: every vitest project, then the plain closing line CI reads, `N passed, N failed`,
 * from vitest's JSON report, with the coverage summary (v8) checked against the floor in
 * vitest.config.ts. Extra arguments go to vitest (for example `--project unit`).
 */
const problem = popplerProblem();
if (problem) {
  console.error(problem);
  process.exit(1);
}
const report = 'test-results.json';
rmSync(report, { force: true });
const run = spawnSync(
  'npx',
  ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, '--coverage', ...process.argv.slice(2)],
  {
    stdio: 'inherit',
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
);
let passed = 0;
let failed = 0;
if (existsSync(report)) {
  const results = JSON.parse(readFileSync(report, 'utf8')) as {
    numPassedTests: number;
    numFailedTests: number;
    testResults: { status: string; assertionResults: { status: string }[] }[];
  };
  passed = results.numPassedTests;
  // A file that fails to load has no failed test of its own: count it as one failure.
  const brokenFiles = results.testResults.filter((f) => f.status === 'failed' && !f.assertionResults.some((a) => a.status === 'failed')).length;
  failed = results.numFailedTests + brokenFiles;
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(run.status === 0 && failed === 0 && passed > 0 ? 0 : 1);
