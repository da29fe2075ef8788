import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { queueUrl, type QueueName } from '../../lib/queues/queues.js';
import { sqs } from '../../lib/queues/sqs.js';

/** Takes every message off a job queue, as a crash or the dead-letter queue would, and returns their bodies (a test may then run the job itself). */
export async function takeJobs(queue: QueueName): Promise<Record<string, string>[]> {
  const bodies: Record<string, string>[] = [];
  for (;;) {
    const out = await sqs().send(new ReceiveMessageCommand({ QueueUrl: queueUrl(queue), MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    if (!out.Messages?.length) return bodies;
    for (const m of out.Messages) {
      bodies.push(JSON.parse(m.Body!) as Record<string, string>);
      await sqs().send(new DeleteMessageCommand({ QueueUrl: queueUrl(queue), ReceiptHandle: m.ReceiptHandle! }));
    }
  }
}
