import { sweep } from '../../lib/jobs/sweep.js';

/** Scheduled (EventBridge): ends abandoned population runs and re-queues lost recalculations. */
export const handler = () => sweep(new Date());
