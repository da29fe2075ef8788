import { CreateQueueCommand, DeleteMessageCommand, GetQueueAttributesCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from '../log.js';
import { QUEUES, queueUrlVariable, type QueueName } from '../queues/queues.js';
import { sqs } from '../queues/sqs.js';

/**
 * The local stand-in for Lambda's SQS event source mapping: queues with their dead-letter queues
 * as the CDK app declares them, and one poller per queue that receives batches, calls the same
 * `functions/workers/*` handler, deletes what succeeded and leaves failures to the redrive policy.
 */
export async function ensureQueues(prefix: string): Promise<void> {
  for (const [name, q] of Object.entries(QUEUES) as [QueueName, (typeof QUEUES)[QueueName]][]) {
    const dlq = await sqs().send(new CreateQueueCommand({ QueueName: `${prefix}${name}-dlq` }));
    const dlqArn = (await sqs().send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
    const queue = await sqs().send(
      new CreateQueueCommand({
        QueueName: `${prefix}${name}`,
        Attributes: {
          VisibilityTimeout: String(q.visibilityTimeoutSeconds),
          RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: q.maxReceiveCount }),
        },
      }),
    );
    process.env[queueUrlVariable(name)] = queue.QueueUrl!;
  }
}

type WorkerHandler = (event: SQSEvent) => Promise<SQSBatchResponse>;

interface Poller {
  name: QueueName;
  url: string;
  batchSize: number;
  handler: WorkerHandler;
}

/** One receive: runs the batch through the worker and deletes what succeeded. Returns how many arrived. */
async function pollOnce(p: Poller, waitSeconds: number): Promise<number> {
  // The wait stays below the visibility timeout, or one receive could return a message twice.
  const out = await sqs().send(
    new ReceiveMessageCommand({ QueueUrl: p.url, MaxNumberOfMessages: p.batchSize, WaitTimeSeconds: waitSeconds, AttributeNames: ['All'] }),
  );
  const messages = out.Messages ?? [];
  if (messages.length === 0) return 0;
  const records = messages.map(
    (m) =>
      ({
        messageId: m.MessageId!,
        receiptHandle: m.ReceiptHandle!,
        body: m.Body ?? '',
        attributes: m.Attributes ?? {},
        eventSource: 'aws:sqs',
      }) as unknown as SQSRecord,
  );
  const result = await p.handler({ Records: records });
  const failed = new Set(result.batchItemFailures.map((f) => f.itemIdentifier));
  for (const m of messages) if (!failed.has(m.MessageId!)) await sqs().send(new DeleteMessageCommand({ QueueUrl: p.url, ReceiptHandle: m.ReceiptHandle! }));
  return messages.length;
}

export interface Pollers {
  stop: () => Promise<void>;
  /** Processes queued jobs until every queue is empty (tests call this instead of waiting). */
  drain: () => Promise<void>;
}

/**
 * Background pollers for the local runtime; with `manual`, nothing polls until `drain` is called,
 * so that a test decides when queued work runs.
 */
export async function startPollers(options: { manual?: boolean } = {}): Promise<Pollers> {
  const pollers: Poller[] = [];
  for (const [name, q] of Object.entries(QUEUES) as [QueueName, (typeof QUEUES)[QueueName]][]) {
    const entry = `../../functions/workers/${q.worker}.js`;
    const { handler } = (await import(/* @vite-ignore */ entry)) as { handler: WorkerHandler };
    pollers.push({ name, url: process.env[queueUrlVariable(name)]!, batchSize: q.batchSize, handler });
  }
  let running = !options.manual;
  const loops = pollers.map(async (p) => {
    while (running) {
      try {
        await pollOnce(p, 1);
      } catch (error) {
        if (running) logger.error('local queue poller failed', { queue: p.name, error: error as Error });
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  });
  return {
    stop: async () => {
      running = false;
      await Promise.allSettled(loops);
    },
    drain: async () => {
      for (let busy = true; busy; ) busy = (await Promise.all(pollers.map((p) => pollOnce(p, 0)))).some((n) => n > 0);
    },
  };
}
