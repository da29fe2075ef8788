import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';

/**
 * A new directory for a test's files (a generated PDF, a synthesized cloud assembly) inside the
 * run's scratch directory, which the global setup removes when the run ends: a directory made
 * straight in the temp folder outlives the run unless every path through the test removes it.
 */
export function scratchDir(prefix: string): string {
  return mkdtempSync(join(inject('scratchDir'), prefix));
}
