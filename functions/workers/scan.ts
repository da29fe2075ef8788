import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { processScan } from '../../lib/files/scan.js';
import { runJobs } from '../../lib/jobs/worker.js';

export const handler = (event: SQSEvent): Promise<SQSBatchResponse> => runJobs(event, 'scan', (message, now) => processScan(message.upload_id ?? '', now));
