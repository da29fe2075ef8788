import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, longest first (measured in full runs: starting processes, `npm
 * start`, the operator CLI, Chromium, bundling, or sweeping every operation or a population). A run
 * that starts one of them last ends on it alone, so they start first, ahead of the rest of their
 * group and whatever their project. vitest would order by the durations it cached from the last
 * run, but a fresh clone has none, and then it orders by file size.
 */
const LONGEST_FIRST = [
  'test/api/openapi-constraints.test.ts',
  'test/api/authorization-matrix.test.ts',
  'test/api/provider-effects.test.ts',
  'test/api/cli.test.ts',
  'test/api/documents.test.ts',
  'test/browser/console.test.ts',
  'test/api/job-dispatch.test.ts',
  'test/api/local-runtime.test.ts',
  'test/infra/function-code.test.ts',
  'test/api/local-stop.test.ts',
  'test/integration/population.test.ts',
  'test/api/cli-repositories.test.ts',
  'test/infra/pdf-bundle.test.ts',
  'test/integration/job-recovery.test.ts',
];

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const at = LONGEST_FIRST.indexOf(relative(spec.project.config.root, spec.moduleId));
      return at === -1 ? LONGEST_FIRST.length : at;
    };
    const group = (spec: TestSpecification) => spec.project.config.sequence.groupOrder;
    // Array sort is stable: the rest keep vitest's order.
    return sorted.sort((a, b) => group(a) - group(b) || rank(a) - rank(b));
  }
}
