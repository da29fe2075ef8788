import { sweep } from '../../lib/jobs/sweep.js';

/** Scheduled (EventBridge, every minute): queues stalled jobs again (lib/jobs/recovery.ts) and creates due review tasks. */
export const handler = () => sweep(new Date());
