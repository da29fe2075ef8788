import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { generateDocument } from '../../lib/jobs/generation.js';
import { runJobs } from '../../lib/jobs/worker.js';

export const handler = (event: SQSEvent): Promise<SQSBatchResponse> => runJobs(event, 'generate', (message, now) => generateDocument(message, now));
