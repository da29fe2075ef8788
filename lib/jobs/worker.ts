import { ChangeMessageVisibilityCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { runAsFunction } from '../command-recording.js';
import { logger } from '../log.js';
import { QUEUES, queueUrl, type QueueName } from '../queues/queues.js';
import { RetrySoon } from '../queues/retry-soon.js';
import { sqs } from '../queues/sqs.js';

/**
 * Runs one job per SQS record and reports failures item by item (ReportBatchItemFailures), so
 * that only failed messages return to the queue and, after the redrive count, reach its
 * dead-letter queue. Jobs must be idempotent: a message can arrive more than once.
 */
export function runJobs(
  event: SQSEvent,
  queue: QueueName,
  job: (message: Record<string, string | undefined>, now: Date) => Promise<void>,
): Promise<SQSBatchResponse> {
  return runAsFunction(`workers/${QUEUES[queue].worker}`, () => runBatch(event, queue, job));
}

async function runBatch(
  event: SQSEvent,
  queue: QueueName,
  job: (message: Record<string, string | undefined>, now: Date) => Promise<void>,
): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      await job(JSON.parse(record.body) as Record<string, string | undefined>, new Date());
    } catch (error) {
      batchItemFailures.push({ itemIdentifier: record.messageId });
      if (error instanceof RetrySoon) {
        logger.info('job retried soon', { queue, message_id: record.messageId, reason: error.message });
        // Best effort: should this fail, the message still returns after the queue's visibility timeout.
        await sqs()
          .send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl(queue), ReceiptHandle: record.receiptHandle, VisibilityTimeout: error.seconds }))
          .catch((e: unknown) => logger.warn('could not shorten the retry delay', { queue, message_id: record.messageId, error: e as Error }));
      } else {
        logger.error('job failed', { queue, message_id: record.messageId, error: error as Error });
      }
    }
  }
  return { batchItemFailures };
}
