import { afterEach, describe, expect, it } from 'vitest';
import {
  attributeTo,
  describeDynamoDb,
  describeS3,
  recordCommands,
  recordedCommands,
  runAsFunction,
  sortedManifest,
  startRecording,
} from '../../lib/command-recording.js';
import { describeSqs } from '../../lib/queues/sqs.js';

describe('describing commands', () => {
  afterEach(() => {
    delete process.env.SCAN_QUEUE_URL;
  });

  it('records a DynamoDB command on the table', () => {
    expect(describeDynamoDb('GetItem', { TableName: 't', Key: {} })).toEqual([{ command: 'dynamodb:GetItem', resource: 'table' }]);
  });

  it('records a query of an index on that index', () => {
    expect(describeDynamoDb('Query', { TableName: 't', IndexName: 'GSI1' })).toEqual([{ command: 'dynamodb:Query', resource: 'index/GSI1' }]);
  });

  it('records a transaction item by item, by the kind of each item', () => {
    const TransactItems = [{ Put: {} }, { Update: {} }, { ConditionCheck: {} }, { Delete: {} }, { Update: {} }];
    expect(describeDynamoDb('TransactWriteItems', { TransactItems }).map((c) => c.command)).toEqual([
      'dynamodb:TransactWriteItems/Put',
      'dynamodb:TransactWriteItems/Update',
      'dynamodb:TransactWriteItems/ConditionCheck',
      'dynamodb:TransactWriteItems/Delete',
      'dynamodb:TransactWriteItems/Update',
    ]);
  });

  it('records an S3 command on the area of its key', () => {
    expect(describeS3('PutObject', { Bucket: 'b', Key: 'quarantine/01ABC' })).toEqual([{ command: 's3:PutObject', resource: 'quarantine/' }]);
  });

  it('records a copy with its source and target areas', () => {
    expect(describeS3('CopyObject', { Bucket: 'b', Key: 'files/01ABC', CopySource: 'b/quarantine/01ABC' })).toEqual([
      { command: 's3:CopyObject', resource: 'quarantine/ -> files/' },
    ]);
  });

  it('records an SQS command on the job queue its URL belongs to', () => {
    process.env.SCAN_QUEUE_URL = 'http://localhost:9324/000000000000/t-01abc-scan';
    expect(describeSqs('SendMessage', { QueueUrl: process.env.SCAN_QUEUE_URL })).toEqual([{ command: 'sqs:SendMessage', resource: 'scan' }]);
  });
});

describe('attributing commands', () => {
  startRecording();
  const issued = { command: 'dynamodb:GetItem', resource: 'table' };

  it('attributes what a function issues to that function', async () => {
    await runAsFunction('workers/attributed', async () => {
      await Promise.resolve();
      recordCommands([issued]);
    });
    expect(recordedCommands()['workers/attributed']).toEqual({ 'dynamodb:GetItem': ['table'] });
  });

  it('moves the scope to the function named once routing knows it', async () => {
    await runAsFunction('http/unrouted', async () => {
      attributeTo('http/renamed');
      await Promise.resolve();
      recordCommands([{ command: 'dynamodb:Query', resource: 'index/GSI1' }]);
    });
    expect(recordedCommands()['http/renamed']).toEqual({ 'dynamodb:Query': ['index/GSI1'] });
  });

  it('records nothing issued outside a function', () => {
    const before = JSON.stringify(recordedCommands());
    recordCommands([{ command: 's3:PutObject', resource: 'files/' }]);
    expect(JSON.stringify(recordedCommands())).toBe(before);
  });
});

describe('the manifest shape', () => {
  it('sorts functions, commands and resources, once each', () => {
    const sorted = sortedManifest({ b: { 'sqs:SendMessage': ['scan'] }, a: { 's3:PutObject': ['uploads/', 'files/', 'files/'], 'dynamodb:Query': ['table'] } });
    expect(JSON.stringify(sorted)).toBe(
      JSON.stringify({ a: { 'dynamodb:Query': ['table'], 's3:PutObject': ['files/', 'uploads/'] }, b: { 'sqs:SendMessage': ['scan'] } }),
    );
  });
});
