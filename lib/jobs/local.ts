import { CreateQueueCommand, DeleteMessageCommand, GetQueueAttributesCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from '../log.js';
import { onTableWrite } from '../store/client.js';
import { openStream } from './local-stream.js';
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
  // The emulator's messages have no event source ARN, region or digests to give; the workers read ids, body and attributes.
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

/** Whether the queues hold no message, visible, in flight or delayed: every job dispatched so far has ended. */
async function queuesIdle(pollers: Poller[]): Promise<boolean> {
  for (const p of pollers) {
    const out = await sqs().send(
      new GetQueueAttributesCommand({
        QueueUrl: p.url,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
      }),
    );
    if (Object.values(out.Attributes ?? {}).some((n) => Number(n) > 0)) return false;
  }
  return true;
}

export interface Pollers {
  stop: () => Promise<void>;
  /** Dispatches what the table's stream holds and processes queued jobs until neither has anything (tests call this instead of waiting). */
  drain: () => Promise<void>;
  /** Dispatches what the table's stream holds, leaving the jobs on their queues; returns how many jobs it sent. */
  dispatch: () => Promise<number>;
}

/**
 * Lambda polls a stream's shards four times a second. The local reader reads as soon as this
 * process writes to the table, and otherwise backs off from that pace to STREAM_IDLE_MS, which
 * bounds how late it sees a write made by another process (the operator CLI beside `npm start`).
 */
export const STREAM_POLL_MS = 250;
export const STREAM_IDLE_MS = 2_000;

/**
 * Background pollers for the local runtime: the table's stream, which dispatches jobs (the
 * transactional outbox, lib/jobs/dispatch.ts), and one poller per queue. With `manual`, nothing
 * polls until `drain` is called, so that a test decides when work runs. `streamPosition` is the
 * file that keeps the stream's position across restarts (under DATA_DIR).
 */
export async function startPollers(options: { manual?: boolean; streamPosition?: string } = {}): Promise<Pollers> {
  const pollers: Poller[] = [];
  for (const [name, q] of Object.entries(QUEUES) as [QueueName, (typeof QUEUES)[QueueName]][]) {
    const entry = `../../functions/workers/${q.worker}.js`;
    const { handler } = (await import(/* @vite-ignore */ entry)) as { handler: WorkerHandler };
    pollers.push({ name, url: process.env[queueUrlVariable(name)]!, batchSize: q.batchSize, handler });
  }
  const stream = await openStream({ positionFile: options.streamPosition });
  const idle = () => queuesIdle(pollers);
  let running = !options.manual;
  let wake: (() => void) | undefined;
  let written = false;
  const unsubscribe = onTableWrite(() => {
    written = true;
    wake?.();
  });
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });
  const streamLoop = (async () => {
    let wait = STREAM_POLL_MS;
    while (running) {
      written = false;
      try {
        const sent = await stream.read();
        await stream.checkpoint(idle);
        wait = sent > 0 ? STREAM_POLL_MS : Math.min(wait * 2, STREAM_IDLE_MS);
      } catch (error) {
        if (running) logger.error('local stream reader failed', { error: error as Error });
      }
      // A write made while reading is read at once; otherwise the next write wakes the reader.
      if (!written) await pause(wait);
    }
  })();
  const queueLoops = pollers.map(async (p) => {
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
      unsubscribe();
      wake?.();
      await Promise.allSettled([streamLoop, ...queueLoops]);
    },
    drain: async () => {
      for (let busy = true; busy; ) {
        const sent = await stream.read();
        const worked = (await Promise.all(pollers.map((p) => pollOnce(p, 0)))).some((n) => n > 0);
        busy = sent > 0 || worked;
      }
      await stream.checkpoint(idle);
    },
    dispatch: () => stream.read(),
  };
}
