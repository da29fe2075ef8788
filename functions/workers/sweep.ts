import { sweep } from '../../lib/jobs/sweep.js';

/** Scheduled (EventBridge): ends abandoned population and import runs, re-queues lost recalculations and creates due review tasks. */
export const handler = () => sweep(new Date());
