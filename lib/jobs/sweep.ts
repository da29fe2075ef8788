import { runAsFunction } from '../command-recording.js';
import { sweepStalledScans } from '../files/scan.js';
import { logger } from '../log.js';
import { sweepStalledImports } from './import-sweep.js';
import { sweepStalledRuns } from './population.js';
import { sweepPurges } from './provider-purge.js';
import { sweepRecalculations } from './recalculation.js';
import { sweepReviewTasks } from './review-tasks.js';

interface Recovered {
  requeued: number;
  ended: number;
}

interface SweepResult {
  stalled_runs: Recovered;
  stalled_imports: Recovered;
  stalled_scans: Recovered;
  requeued_recalculations: number;
  review_tasks: number;
  requeued_purges: number;
}

const NONE: Recovered = { requeued: 0, ended: 0 };

/**
 * The periodic sweep (EventBridge schedule on AWS, a timer locally, both every
 * SWEEP_INTERVAL_SECONDS): recovers stalled population runs first, so that recalculations waiting
 * on them can go, then stalled import runs and scans, then re-queues lost recalculations, then
 * creates the review tasks that have fallen due (a bounded number of pages per tick), so that a
 * backlog of reviews never holds up the recalculations, and last re-queues lost purges of deleted
 * providers and releases. Each part reads only its own sparse index partition.
 */
export function sweep(now: Date): Promise<SweepResult> {
  // The sweep function's entry point: its handler, the local timer and tests all come through here.
  return runAsFunction('workers/sweep', () => sweepOnce(now));
}

/** One part failing must not keep the others from running on this tick. */
const part = <T>(name: string, run: Promise<T>, none: T): Promise<T> =>
  run.catch((error: unknown) => {
    logger.error(`sweep of ${name} failed`, { error: error as Error });
    return none;
  });

async function sweepOnce(now: Date): Promise<SweepResult> {
  const stalled_runs = await part('stalled population runs', sweepStalledRuns(now), NONE);
  const stalled_imports = await part('stalled import runs', sweepStalledImports(now), NONE);
  const stalled_scans = await part('stalled scans', sweepStalledScans(now), NONE);
  let recalculationError: unknown;
  const requeued_recalculations = await sweepRecalculations(now).catch((error: unknown) => {
    recalculationError = error;
    return 0;
  });
  const review_tasks = await part('due reviews', sweepReviewTasks(now), 0);
  const requeued_purges = await part('lost purges', sweepPurges(now), 0);
  // The recalculation sweep's failure still fails the tick, as before, once the reviews have had their turn.
  if (recalculationError) throw recalculationError;
  return { stalled_runs, stalled_imports, stalled_scans, requeued_recalculations, review_tasks, requeued_purges };
}
