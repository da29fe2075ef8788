import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '../log.js';
import type { QueueName } from './queues.js';

/**
 * Runs one job per SQS record and reports failures item by item (ReportBatchItemFailures), so
 * that only failed messages return to the queue and, after the redrive count, reach its
 * dead-letter queue. Jobs must be idempotent: a message can arrive more than once.
 */
export async function runJobs(
  event: SQSEvent,
  queue: QueueName,
  job: (message: Record<string, string | undefined>, now: Date) => Promise<void>,
): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      await job(JSON.parse(record.body) as Record<string, string | undefined>, new Date());
    } catch (error) {
      logger.error('job failed', { queue, message_id: record.messageId, error: error as Error });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}
