import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { addCommandRecording, describeSqs } from '../command-recording.js';
import { settings } from '../config.js';
import { queueUrl, type QueueName } from './queues.js';

let client: SQSClient | undefined;

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
  return created;
}

export function resetSqsClient(): void {
  client?.destroy();
  client = undefined;
}

/** Messages carry identifiers only; the worker reads everything else from the job's record. */
export async function sendJob(queue: QueueName, message: Record<string, string>): Promise<void> {
  await sqs().send(new SendMessageCommand({ QueueUrl: queueUrl(queue), MessageBody: JSON.stringify(message) }));
}
