import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { resetSettings } from '../../../lib/config.js';
import { queueUrlVariable } from '../../../lib/queues/queues.js';
import { describeSqs, resetSqsClient, sendJob, sqs } from '../../../lib/queues/sqs.js';

const SCAN_URL = 'https://sqs.ap-southeast-2.amazonaws.com/123456789012/aop-scan';

afterEach(() => {
  vi.unstubAllEnvs();
  resetSettings();
  resetSqsClient();
});

describe('describeSqs', () => {
  it('names the job queue whose URL the command carries', () => {
    vi.stubEnv(queueUrlVariable('scan'), SCAN_URL);
    expect(describeSqs('SendMessage', { QueueUrl: SCAN_URL })).toEqual([{ command: 'sqs:SendMessage', resource: 'scan' }]);
  });

  it('names a queue that is no job queue by the last part of its URL', () => {
    expect(describeSqs('SendMessage', { QueueUrl: 'http://localhost:9324/000000000000/elsewhere' })).toEqual([
      { command: 'sqs:SendMessage', resource: 'elsewhere' },
    ]);
  });
});

describe('sqs', () => {
  it('keeps one client until it is reset', () => {
    const first = sqs();
    expect(sqs()).toBe(first);
    resetSqsClient();
    expect(sqs()).not.toBe(first);
  });

  it('reaches the endpoint the local runtime sets, with local credentials', async () => {
    vi.stubEnv('SQS_ENDPOINT', 'http://localhost:9324');
    resetSettings();
    const config = sqs().config;
    expect([(await config.endpoint?.())?.hostname, await config.credentials()]).toEqual([
      'localhost',
      expect.objectContaining({ accessKeyId: 'local', secretAccessKey: 'local' }),
    ]);
  });

  it('uses the configured region and no endpoint override on AWS', async () => {
    vi.stubEnv('SQS_ENDPOINT', '');
    vi.stubEnv('AWS_REGION', 'ap-southeast-4');
    resetSettings();
    const config = sqs().config;
    expect([await config.region(), config.endpoint]).toEqual(['ap-southeast-4', undefined]);
  });
});

describe('sendJob', () => {
  const client = mockClient(SQSClient);
  beforeEach(() => {
    client.reset();
    vi.stubEnv(queueUrlVariable('scan'), SCAN_URL);
  });

  it('sends the message to the queue as a JSON body of identifiers', async () => {
    client.on(SendMessageCommand).resolves({});
    await sendJob('scan', { upload_id: '01M84T2AZS9C8TZ6EGZG2RXYHA' });
    expect(client.commandCalls(SendMessageCommand).map((c) => c.args[0].input)).toEqual([
      { QueueUrl: SCAN_URL, MessageBody: '{"upload_id":"01M84T2AZS9C8TZ6EGZG2RXYHA"}' },
    ]);
  });

  it('fails with the send', async () => {
    client.on(SendMessageCommand).rejects(new Error('throttled'));
    await expect(sendJob('scan', { upload_id: 'U' })).rejects.toThrow('throttled');
  });
});
