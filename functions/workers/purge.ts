import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { purgeProviderData } from '../../lib/jobs/provider-purge.js';
import { runJobs } from '../../lib/jobs/worker.js';

export const handler = (event: SQSEvent): Promise<SQSBatchResponse> => runJobs(event, 'purge', (message) => purgeProviderData(message));
