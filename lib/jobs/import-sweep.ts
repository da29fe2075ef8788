import { logger } from '../log.js';
import { quietSince } from '../store/conditions.js';
import { finishImportRun, RunMovedOn, runningImportsStartedBefore } from '../store/imports.js';
import { QUEUES } from '../queues/queues.js';

/**
 * A run no delivery has worked on for the import queue's whole redrive window has had its message
 * dead-lettered (its worker kept crashing): nothing will end it, and while it runs the artefact
 * refuses a new import (409 import_running) and its detail never settles.
 */
export const IMPORT_ABANDONED_AFTER_MS = QUEUES.import.maxReceiveCount * QUEUES.import.visibilityTimeoutSeconds * 1000;

/**
 * Ends abandoned import runs as failed (`import_abandoned`), each conditional on being the same
 * run, still running and still as quiet as the index said: a delivery that has just taken the
 * lease keeps its run. A late delivery of an ended run finds it not running and does nothing.
 */
export async function sweepAbandonedImports(now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - IMPORT_ABANDONED_AFTER_MS).toISOString();
  const candidates = await runningImportsStartedBefore(cutoff);
  let ended = 0;
  for (const run of candidates) {
    if ((run.lease_until ?? run.started_at) >= cutoff) continue;
    try {
      await finishImportRun(
        run,
        { status: 'failed', at: now, code: 'import_abandoned', detail: 'the import stopped without finishing; start it again' },
        quietSince(cutoff),
      );
      ended++;
    } catch (error) {
      if (!(error instanceof RunMovedOn))
        logger.error('could not end an abandoned import run', {
          provider_id: run.provider_id,
          artefact_id: run.artefact_id,
          run_id: run.run_id,
          error: error as Error,
        });
    }
  }
  if (ended) logger.warn('abandoned import runs ended as failed', { count: ended });
  return ended;
}
