import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { populate } from '../../lib/jobs/population.js';
import { runJobs } from '../../lib/jobs/worker.js';

export const handler = (event: SQSEvent): Promise<SQSBatchResponse> => runJobs(event, 'populate', (message, now) => populate(message, now));
