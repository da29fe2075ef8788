import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { runAsFunction } from '../command-recording.js';
import { logger } from '../log.js';
import { type Image, jobStartedBy } from './job-records.js';
import { sendJob } from '../queues/sqs.js';

type StreamImage = NonNullable<NonNullable<DynamoDBRecord['dynamodb']>['NewImage']>;

const imageOf = (image: StreamImage | undefined): Image | undefined => (image ? unmarshall(image as Parameters<typeof unmarshall>[0]) : undefined);

/**
 * The stream dispatcher (the transactional outbox's relay): a committed write of a job record is
 * what queues its job, so an acknowledged job never depends on a send made by the process that
 * acknowledged it. Records go in stream order; the first that cannot be sent is reported and
 * ends the batch, so that the mapping retries from it (ReportBatchItemFailures on a stream takes
 * the lowest failed sequence number) and no later record overtakes it. Sending twice is safe:
 * every job reads its record and leaves a job that has moved on alone.
 */
export async function dispatchStream(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const { failedAt } = await relayRecords(event.Records);
  return { batchItemFailures: failedAt === undefined ? [] : [{ itemIdentifier: failedAt }] };
}

/** What one batch queued: how many jobs were sent, and the sequence number of the record that could not be. */
export interface Relayed {
  sent: number;
  failedAt?: string;
}

/** The dispatcher's work, with the count of jobs sent that the local reader's drain needs to know whether anything was started. */
export function relayRecords(records: DynamoDBRecord[]): Promise<Relayed> {
  return runAsFunction('workers/dispatch', async () => {
    let sent = 0;
    for (const record of records) {
      const job = jobStartedBy(imageOf(record.dynamodb?.NewImage), imageOf(record.dynamodb?.OldImage));
      if (!job) continue;
      try {
        await sendJob(job.queue, job.message);
      } catch (error) {
        logger.error('job not dispatched; the stream retries it', { queue: job.queue, ...job.message, error: error as Error });
        return { sent, failedAt: record.dynamodb?.SequenceNumber ?? '' };
      }
      sent += 1;
    }
    return { sent };
  });
}
