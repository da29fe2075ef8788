import { describe, expect, it } from 'vitest';
import { permissionsOf, permissionsOfCommands, UnmappedCommandError } from '../../infra/grants.js';
import { missingFrom, mergeManifests } from '../../infra/recorded-commands.js';

const actionsOf = (command: string, resource: string) => permissionsOf(command, resource).map((p) => p.action);

describe('IAM permissions of recorded commands', () => {
  it('authorizes each transaction item by the action of its kind', () => {
    expect(actionsOf('dynamodb:TransactWriteItems/Put', 'table')).toEqual(['dynamodb:PutItem']);
    expect(actionsOf('dynamodb:TransactWriteItems/Update', 'table')).toEqual(['dynamodb:UpdateItem']);
    expect(actionsOf('dynamodb:TransactWriteItems/Delete', 'table')).toEqual(['dynamodb:DeleteItem']);
    expect(actionsOf('dynamodb:TransactWriteItems/ConditionCheck', 'table')).toEqual(['dynamodb:ConditionCheckItem']);
  });

  it('needs BatchWriteItem for a batch write', () => {
    expect(permissionsOf('dynamodb:BatchWriteItem', 'table')).toEqual([{ action: 'dynamodb:BatchWriteItem', resource: { kind: 'table' } }]);
  });

  it('grants a query of an index on that index', () => {
    expect(permissionsOf('dynamodb:Query', 'index/GSI1')).toEqual([{ action: 'dynamodb:Query', resource: { kind: 'index', name: 'GSI1' } }]);
  });

  it('needs GetObject on the source area, ListBucket so that a missing source answers 404, and PutObject on the target area for a copy', () => {
    expect(permissionsOf('s3:CopyObject', 'quarantine/ -> files/')).toEqual([
      { action: 's3:GetObject', resource: { kind: 'objects', area: 'quarantine/' } },
      { action: 's3:ListBucket', resource: { kind: 'bucket' } },
      { action: 's3:PutObject', resource: { kind: 'objects', area: 'files/' } },
    ]);
  });

  it('needs GetObject and ListBucket to read or head an object, so that a missing key answers 404', () => {
    for (const command of ['s3:GetObject', 's3:HeadObject']) {
      expect(permissionsOf(command, 'files/')).toEqual([
        { action: 's3:GetObject', resource: { kind: 'objects', area: 'files/' } },
        { action: 's3:ListBucket', resource: { kind: 'bucket' } },
      ]);
    }
  });

  it('needs PutObject for every step of a multipart upload, and AbortMultipartUpload to abandon one', () => {
    for (const step of ['s3:CreateMultipartUpload', 's3:UploadPart', 's3:CompleteMultipartUpload'])
      expect(permissionsOf(step, 'documents/')).toEqual([{ action: 's3:PutObject', resource: { kind: 'objects', area: 'documents/' } }]);
    expect(permissionsOf('s3:AbortMultipartUpload', 'documents/')).toEqual([
      { action: 's3:AbortMultipartUpload', resource: { kind: 'objects', area: 'documents/' } },
    ]);
  });

  it('needs PutObject for a presigned POST, signed by the function and sent by the client', () => {
    expect(permissionsOf('s3:PresignedPost', 'uploads/')).toEqual([{ action: 's3:PutObject', resource: { kind: 'objects', area: 'uploads/' } }]);
  });

  it('refuses a command it knows no action for', () => {
    expect(() => permissionsOf('dynamodb:DeleteTable', 'table')).toThrow(UnmappedCommandError);
    expect(() => permissionsOf('s3:PutBucketPolicy', 'bucket')).toThrow(UnmappedCommandError);
  });

  it('leaves to the event source mapping what a worker does on the queue it consumes, and grants it on other queues', () => {
    const commands = { 'sqs:ChangeMessageVisibility': ['scan'], 'sqs:SendMessage': ['recalculate'] };
    expect(permissionsOfCommands(commands, 'scan').map((p) => p.action)).toEqual(['sqs:SendMessage']);
    expect(permissionsOfCommands(commands).map((p) => p.action)).toEqual(['sqs:ChangeMessageVisibility', 'sqs:SendMessage']);
  });

  it('lists each permission once', () => {
    const commands = { 'dynamodb:GetItem': ['table'], 'dynamodb:TransactGetItems/Get': ['table'], 's3:GetObject': ['files/', 'quarantine/'] };
    expect(permissionsOfCommands(commands).map((p) => p.action)).toEqual(['dynamodb:GetItem', 's3:GetObject', 's3:GetObject', 's3:ListBucket']);
  });
});

describe('the manifest check', () => {
  it('reports each recorded command on a resource the manifest lacks', () => {
    const manifest = { 'workers/populate': { 'dynamodb:Query': ['table'] } };
    const recorded = { 'workers/populate': { 'dynamodb:Query': ['index/GSI1', 'table'], 'dynamodb:BatchWriteItem': ['table'] } };
    expect(missingFrom(manifest, recorded)).toEqual(['workers/populate: dynamodb:Query on index/GSI1', 'workers/populate: dynamodb:BatchWriteItem on table']);
  });

  it('passes a recording that exercised only part of the manifest', () => {
    const manifest = { 'http/controls': { 'dynamodb:Query': ['table'], 'dynamodb:GetItem': ['table'] }, 'workers/sweep': { 'dynamodb:Query': ['index/GSI1'] } };
    expect(missingFrom(manifest, { 'http/controls': { 'dynamodb:GetItem': ['table'] } })).toEqual([]);
  });

  it('merges the recordings of several test files into their union', () => {
    const merged = mergeManifests([
      { f: { 'dynamodb:Query': ['table'] } },
      { f: { 'dynamodb:Query': ['index/GSI1', 'table'] }, g: { 'sqs:SendMessage': ['scan'] } },
    ]);
    expect(merged).toEqual({ f: { 'dynamodb:Query': ['index/GSI1', 'table'] }, g: { 'sqs:SendMessage': ['scan'] } });
  });
});
