import { runAsFunction } from '../command-recording.js';
import { logger } from '../log.js';
import { sweepAbandonedImports } from './import-sweep.js';
import { sweepAbandonedRuns } from './population.js';
import { sweepPurges } from './provider-purge.js';
import { sweepRecalculations } from './recalculation.js';
import { sweepReviewTasks } from './review-tasks.js';

interface SweepResult {
  abandoned_runs: number;
  abandoned_imports: number;
  requeued_recalculations: number;
  review_tasks: number;
  requeued_purges: number;
}

/**
 * The periodic sweep (EventBridge schedule on AWS, a timer locally): ends abandoned population
 * runs first, so that recalculations waiting on them can go, and abandoned import runs, then
 * re-queues lost recalculations, then creates the review tasks that have fallen due (a bounded number of pages per tick), so that
 * a backlog of reviews never holds up the recalculations, and last re-queues lost purges of deleted providers and releases.
 */
export function sweep(now: Date): Promise<SweepResult> {
  // The sweep function's entry point: its handler, the local timer and tests all come through here.
  return runAsFunction('workers/sweep', () => sweepOnce(now));
}

async function sweepOnce(now: Date): Promise<SweepResult> {
  // One part failing must not keep the others from running on this tick.
  const abandoned_runs = await sweepAbandonedRuns(now).catch((error: unknown) => {
    logger.error('sweep of abandoned population runs failed', { error: error as Error });
    return 0;
  });
  const abandoned_imports = await sweepAbandonedImports(now).catch((error: unknown) => {
    logger.error('sweep of abandoned import runs failed', { error: error as Error });
    return 0;
  });
  let recalculationError: unknown;
  const requeued_recalculations = await sweepRecalculations(now).catch((error: unknown) => {
    recalculationError = error;
    return 0;
  });
  const review_tasks = await sweepReviewTasks(now).catch((error: unknown) => {
    logger.error('sweep of due reviews failed', { error: error as Error });
    return 0;
  });
  const requeued_purges = await sweepPurges(now).catch((error: unknown) => {
    logger.error('sweep of lost purges failed', { error: error as Error });
    return 0;
  });
  // The recalculation sweep's failure still fails the tick, as before, once the reviews have had their turn.
  if (recalculationError) throw recalculationError;
  return { abandoned_runs, abandoned_imports, requeued_recalculations, review_tasks, requeued_purges };
}
