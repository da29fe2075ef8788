import { absentOrBefore, and, leaseFree, type Condition } from '../store/conditions.js';
import type { Swept } from '../store/entity.js';

/**
 * How work whose worker died comes back (docs/architecture.md, Jobs). A worker holds a lease on
 * its job's record and renews it at every checkpoint it reaches (a chunk of controls, a batch of
 * rows, a page of a purge); a lease that has run out means the worker is gone. The sweep, every
 * SWEEP_INTERVAL_SECONDS, queues such work again for a delivery that takes the lease over and
 * continues where the last checkpoint left it, and ends it with a clear error code after
 * MAX_REQUEUES re-queues, so that a job that kills every worker is not retried for ever.
 */

/** The sweep's period: the EventBridge schedule's rate on AWS and the local runtime's timer. */
export const SWEEP_INTERVAL_SECONDS = 60;

/**
 * A lease's length from its last renewal. Checkpoints come seconds apart, so two minutes without
 * one is a dead worker. It must not outlast the visibility timeout of a queue whose jobs hold it:
 * SQS's own redelivery of a crashed job must find the lease run out and take it over, not wait on it.
 */
export const LEASE_SECONDS = 120;

/** Re-queues of one piece of work before the sweep ends it as failed. */
export const MAX_REQUEUES = 3;

export const leaseUntil = (now: Date, seconds = LEASE_SECONDS): string => new Date(now.getTime() + seconds * 1000).toISOString();

/**
 * No worker has held the record's lease since it ran out, and the sweep's last re-queue has had
 * a lease's length to be picked up. `since` is when the work was asked for (or last re-queued by
 * another path): a record no worker has leased yet is given a lease's length from then.
 */
export function stalled(record: Swept, since: string, now: Date): boolean {
  const cutoff = new Date(now.getTime() - LEASE_SECONDS * 1000).toISOString();
  if (record.lease_until !== undefined ? record.lease_until >= now.toISOString() : since >= cutoff) return false;
  return record.requeued_at === undefined || record.requeued_at < cutoff;
}

export const requeuesOf = (record: Swept): number => record.requeues ?? 0;

/**
 * The sweep's write stays valid only while the record is as stalled as it read it: a delivery
 * that has taken the lease meanwhile, or another sweep that re-queued it, wins.
 */
export function stillStalled(now: Date): Condition {
  return and(leaseFree('lease_until', now.toISOString()), absentOrBefore('requeued_at', new Date(now.getTime() - LEASE_SECONDS * 1000).toISOString()));
}

/** The fields the sweep sets when it queues the work again. */
export const requeueFields = (record: Swept, now: Date) => ({ requeued_at: now.toISOString(), requeues: requeuesOf(record) + 1 });

/** Longest time from a worker's death to its work being queued again: the lease running out, then the next tick. */
export const DETECTION_SECONDS = LEASE_SECONDS + SWEEP_INTERVAL_SECONDS;
