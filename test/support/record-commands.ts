import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, inject } from 'vitest';
import { missingFrom, readManifest, REGENERATE_HINT } from '../../infra/recorded-commands.js';
import { recordedCommands, startRecording } from '../../lib/command-recording.js';

/**
 * Setup file of the integration, API and browser projects: records the AWS commands each function issues
 * in this test file. When recording (RECORD_COMMANDS=1) they go to the run's directory for
 * test/support/recorded-commands-setup.ts to merge; otherwise the file fails if a function issued
 * a command that infra/recorded-commands.json, and with it the function's role, does not allow.
 * Only what this file exercised is checked, so that a partial run passes.
 */
startRecording();

afterAll(() => {
  const recorded = recordedCommands();
  const dir = inject('commandRecordDir');
  if (dir) {
    writeFileSync(join(dir, `${randomUUID()}.json`), JSON.stringify(recorded));
    return;
  }
  const missing = missingFrom(readManifest(), recorded);
  if (missing.length > 0) {
    throw new Error(
      `Functions issued commands infra/recorded-commands.json does not hold, so their roles would not allow them on AWS:\n  ${missing.join('\n  ')}\n${REGENERATE_HINT}`,
    );
  }
});
