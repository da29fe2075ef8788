import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { addCommandRecording, type Describe } from '../command-recording.js';
import { settings } from '../config.js';
import { withoutSdkLogging } from '../sdk-logging.js';
import { QUEUES, queueUrl, queueUrlVariable, type QueueName } from './queues.js';

let client: SQSClient | undefined;

/** An SQS command on the job queue (lib/queues/queues.ts) whose URL it names. */
export const describeSqs: Describe = (command, input) => {
  const url = String(input.QueueUrl ?? '');
  const queue = (Object.keys(QUEUES) as QueueName[]).find((name) => process.env[queueUrlVariable(name)] === url);
  return [{ command: `sqs:${command}`, resource: queue ?? url.slice(url.lastIndexOf('/') + 1) }];
};

export function sqs(): SQSClient {
  client ??= createClient();
  return client;
}

function createClient(): SQSClient {
  const { SQS_ENDPOINT, AWS_REGION } = settings();
  const created = new SQSClient({
    region: AWS_REGION,
    ...(SQS_ENDPOINT ? { endpoint: SQS_ENDPOINT, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
  addCommandRecording(created.middlewareStack, describeSqs);
  withoutSdkLogging(created.middlewareStack);
  return created;
}

export function resetSqsClient(): void {
  client?.destroy();
  client = undefined;
}

const sentListeners = new Set<(queue: QueueName) => void>();

/**
 * Calls `listener` after each job this process sends, until the returned function is called: the
 * local queue pollers receive at once instead of polling an idle queue.
 */
export function onJobSent(listener: (queue: QueueName) => void): () => void {
  sentListeners.add(listener);
  return () => sentListeners.delete(listener);
}

/** Messages carry identifiers only; the worker reads everything else from the job's record. */
export async function sendJob(queue: QueueName, message: Record<string, string>): Promise<void> {
  await sqs().send(new SendMessageCommand({ QueueUrl: queueUrl(queue), MessageBody: JSON.stringify(message) }));
  for (const listener of sentListeners) listener(queue);
}
