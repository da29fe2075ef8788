import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { recalculate } from '../../lib/jobs/recalculation.js';
import { runJobs } from '../../lib/jobs/worker.js';

export const handler = (event: SQSEvent): Promise<SQSBatchResponse> => runJobs(event, 'recalculate', (message, now) => recalculate(message, now));
