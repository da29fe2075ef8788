import { CreateQueueCommand, DeleteMessageCommand, GetQueueAttributesCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from '../log.js';
import { onTableWrite } from '../store/client.js';
import { openStream } from './local-stream.js';
import { QUEUES, queueUrlVariable, type QueueName } from '../queues/queues.js';
import { onJobSent, sqs } from '../queues/sqs.js';
import { once } from '../domain/validation.js';

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
  /**
   * The worker, imported at its queue's first delivery: a start loaded all six, about 1 s of CPU
   * (generate alone, with exceljs, pdfkit and its fonts, 0.96 s), most of which a session never runs.
   */
  handler: () => Promise<WorkerHandler>;
}

/**
 * One receive that waits for nothing: runs the batch through the worker and deletes what
 * succeeded. Returns how many arrived. The emulator answers a receive by scanning the queue every
 * 10 ms for its whole wait (and, for a batch of several, waits out the wait unless the batch fills),
 * so nothing here long-polls: the pollers receive when this process sends a job, and otherwise
 * every QUEUE_IDLE_MS.
 */
async function pollOnce(p: Poller): Promise<number> {
  const out = await sqs().send(new ReceiveMessageCommand({ QueueUrl: p.url, MaxNumberOfMessages: p.batchSize, WaitTimeSeconds: 0, AttributeNames: ['All'] }));
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
  const result = await (await p.handler())({ Records: records });
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
  /** Dispatches what the table's stream holds and processes queued jobs until neither has anything and no job is being worked (tests call this instead of waiting). */
  drain: () => Promise<void>;
  /** Dispatches what the table's stream holds, leaving the jobs on their queues; returns how many jobs it sent. */
  dispatch: () => Promise<number>;
}

/**
 * Lambda polls a stream's shards four times a second. The local reader reads at that pace while
 * this process writes to the table (the first write after a quiet spell at once, the writes of a
 * busy moment together: each request writes three rate-limit items or more, and the reads after
 * each write were four in ten of the DynamoDB commands of an API test file whose jobs run in the
 * background), and otherwise backs off to STREAM_IDLE_MS, which bounds how late it sees a write
 * made by another process (the operator CLI beside `npm start`).
 */
export const STREAM_POLL_MS = 250;
export const STREAM_IDLE_MS = 2_000;

/**
 * A queue's poller receives as soon as this process sends it a job, and otherwise every
 * QUEUE_IDLE_MS, which bounds how late it sees a message sent by another process or one back from
 * a shortened or expired visibility timeout.
 */
export const QUEUE_IDLE_MS = 2_000;

/** A sleep that `ring` ends early; a ring since the last `reset` makes the next sleep return at once. */
function alarm() {
  let rung = false;
  let end: (() => void) | undefined;
  return {
    ring: () => {
      rung = true;
      end?.();
    },
    reset: () => {
      rung = false;
    },
    sleep: (ms: number) =>
      new Promise<void>((resolve) => {
        if (rung || ms <= 0) return resolve();
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          end = undefined;
          resolve();
        }
        end = done;
      }),
  };
}

/**
 * Background pollers for the local runtime: the table's stream, which dispatches jobs (the
 * transactional outbox, lib/jobs/dispatch.ts), and one poller per queue. With `manual`, nothing
 * polls until `drain` is called, so that a test decides when work runs. `streamPosition` is the
 * file that keeps the stream's position across restarts (under DATA_DIR). With `loadWorkers`, every
 * worker is loaded before this answers, as in a warm Lambda: the bench times jobs, not a worker's
 * first load.
 */
export async function startPollers(options: { manual?: boolean; streamPosition?: string; loadWorkers?: boolean } = {}): Promise<Pollers> {
  const pollers: Poller[] = [];
  for (const [name, q] of Object.entries(QUEUES) as [QueueName, (typeof QUEUES)[QueueName]][]) {
    const entry = `../../functions/workers/${q.worker}.js`;
    const handler = once(async () => ((await import(/* @vite-ignore */ entry)) as { handler: WorkerHandler }).handler);
    pollers.push({ name, url: process.env[queueUrlVariable(name)]!, batchSize: q.batchSize, handler });
  }
  if (options.loadWorkers) await Promise.all(pollers.map((p) => p.handler()));
  const stream = await openStream({ positionFile: options.streamPosition });
  const idle = () => queuesIdle(pollers);
  let running = !options.manual;
  const halt = alarm();
  const streamAlarm = alarm();
  const queueAlarms = new Map(pollers.map((p) => [p.name, alarm()]));
  const sentTo = new Set<QueueName>();
  // The background loops' receives under way, with their queue: a drain ends only when a batch a
  // background poller took before the drain's own receive has been worked. A drain's own receives are
  // not here: a test may leave one hanging for good, as a worker that died (test/api/document-lease.test.ts).
  const receiving = new Map<Promise<number>, QueueName>();
  const receiveInBackground = (p: Poller) => {
    const run = pollOnce(p);
    receiving.set(run, p.name);
    const settle = () => receiving.delete(run);
    run.then(settle, settle);
    return run;
  };
  const subscriptions = [
    onTableWrite(streamAlarm.ring),
    onJobSent((queue) => {
      sentTo.add(queue);
      queueAlarms.get(queue)?.ring();
    }),
  ];
  const streamLoop = (async () => {
    let wait = STREAM_POLL_MS;
    while (running) {
      const began = Date.now();
      streamAlarm.reset();
      try {
        const sent = await stream.read();
        await stream.checkpoint(idle);
        wait = sent > 0 ? STREAM_POLL_MS : Math.min(wait * 2, STREAM_IDLE_MS);
      } catch (error) {
        if (running) logger.error('local stream reader failed', { error: error as Error });
      }
      // The next write wakes the reader (a write made while reading already has), within Lambda's pace.
      await streamAlarm.sleep(wait);
      await halt.sleep(began + STREAM_POLL_MS - Date.now());
    }
  })();
  const queueLoops = pollers.map(async (p) => {
    const queueAlarm = queueAlarms.get(p.name)!;
    while (running) {
      queueAlarm.reset();
      try {
        // A batch that arrived may have company: the queue is received from again at once.
        if ((await receiveInBackground(p)) > 0) continue;
      } catch (error) {
        if (running) logger.error('local queue poller failed', { queue: p.name, error: error as Error });
      }
      await queueAlarm.sleep(QUEUE_IDLE_MS);
    }
  });
  return {
    stop: async () => {
      running = false;
      for (const unsubscribe of subscriptions) unsubscribe();
      halt.ring();
      streamAlarm.ring();
      for (const queueAlarm of queueAlarms.values()) queueAlarm.ring();
      await Promise.allSettled([streamLoop, ...queueLoops]);
    },
    // Every queue is received from once, and then only a queue that delivered or that this process
    // sent a job to since: a drain received from all six after each job, most of them empty.
    drain: async () => {
      let due = new Set(pollers.map((p) => p.name));
      for (;;) {
        const sent = await stream.read();
        for (const queue of sentTo) due.add(queue);
        sentTo.clear();
        const round = pollers.filter((p) => due.has(p.name));
        const delivered = await Promise.all(round.map((p) => pollOnce(p)));
        due = new Set([...round.filter((_, i) => delivered[i]! > 0).map((p) => p.name), ...sentTo]);
        if (sent === 0 && due.size === 0) {
          // The stream holds what the last read did not reach (a job it could not send yet): read again at the stream's pace.
          if (stream.behind()) {
            await new Promise((resolve) => setTimeout(resolve, STREAM_POLL_MS));
            continue;
          }
          if (receiving.size === 0) break;
          // A background poller received the job first: its queue is due again once that batch is worked.
          const busy = new Set(receiving.values());
          await Promise.allSettled(receiving.keys());
          due = busy;
        }
      }
      await stream.checkpoint(idle);
    },
    dispatch: () => stream.read(),
  };
}
