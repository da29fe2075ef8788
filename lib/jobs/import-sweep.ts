import { logger } from '../log.js';
import { finishImportRun, markImportRequeued, RunMovedOn, runningImportsStartedBefore } from '../store/imports.js';
import { LEASE_SECONDS, MAX_REQUEUES, requeueFields, requeuesOf, stalled, stillStalled } from '../queues/recovery.js';
import { sendJob } from '../queues/sqs.js';

/**
 * Running import runs whose worker stopped renewing its lease (every committed batch renews it)
 * are queued again: the next delivery takes the lease over and resumes after the last committed
 * batch, so no row is written or counted twice, and the artefact's run stays `running` with its
 * progress moving again. A run queued again MAX_REQUEUES times and still stalled ends as failed
 * (`import_abandoned`): until then the artefact refuses a new import (409 import_running).
 * Every write is conditional on the same run, still running and still stalled, so a delivery that
 * has just taken the lease keeps its run; a late delivery of an ended run does nothing.
 */
export async function sweepStalledImports(now: Date): Promise<{ requeued: number; ended: number }> {
  const candidates = await runningImportsStartedBefore(new Date(now.getTime() - LEASE_SECONDS * 1000).toISOString());
  const counts = { requeued: 0, ended: 0 };
  for (const run of candidates) {
    if (!stalled(run, run.started_at, now)) continue;
    try {
      if (requeuesOf(run) >= MAX_REQUEUES) {
        await finishImportRun(
          run,
          { status: 'failed', at: now, code: 'import_abandoned', detail: 'the import stopped without finishing; start it again' },
          stillStalled(now),
        );
        counts.ended++;
      } else {
        await markImportRequeued(run, requeueFields(run, now), stillStalled(now));
        await sendJob('import', { provider_id: run.provider_id, artefact_id: run.artefact_id, run_id: run.run_id });
        counts.requeued++;
      }
    } catch (error) {
      if (!(error instanceof RunMovedOn))
        logger.error('could not recover a stalled import run', {
          provider_id: run.provider_id,
          artefact_id: run.artefact_id,
          run_id: run.run_id,
          error: error as Error,
        });
    }
  }
  if (counts.requeued || counts.ended) logger.warn('stalled import runs recovered', counts);
  return counts;
}
