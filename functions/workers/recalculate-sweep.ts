import { sweepRecalculations } from '../../lib/jobs/recalculation.js';

/** Scheduled (EventBridge): re-queues applicability recalculations whose job was lost. */
export const handler = async (): Promise<{ queued: number }> => ({ queued: await sweepRecalculations(new Date()) });
