import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { runImport } from '../../lib/jobs/import-source.js';
import { runJobs } from '../../lib/jobs/worker.js';

export const handler = (event: SQSEvent): Promise<SQSBatchResponse> => runJobs(event, 'import', runImport);
