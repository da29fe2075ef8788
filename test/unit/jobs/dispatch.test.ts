import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dispatchStream } from '../../../lib/jobs/dispatch.js';
import { jobStartedBy } from '../../../lib/jobs/job-records.js';
import { queueUrlVariable } from '../../../lib/queues/queues.js';
import { resetSqsClient } from '../../../lib/queues/sqs.js';

const run = (runId: string, status: string, extra: Record<string, unknown> = {}) => ({
  PK: 'PROJECT#P1',
  SK: 'POPULATION',
  entity: 'population-run',
  run_id: runId,
  status,
  ...extra,
});
const marker = (generation: number, extra: Record<string, unknown> = {}) => ({
  entity: 'applicability-recalculation',
  subject: { system_id: 'S1' },
  generation,
  ...extra,
});

describe('jobStartedBy', () => {
  it('starts the job a new record asks for, with the message its worker reads', () => {
    expect(jobStartedBy({ entity: 'upload', id: 'U1', status: 'quarantine' }, undefined)).toEqual({
      queue: 'scan',
      message: { upload_id: 'U1' },
      token: 'U1',
    });
  });

  it('starts a new run that replaces an ended one in the same record', () => {
    expect(jobStartedBy(run('R2', 'running'), run('R1', 'failed'))?.message).toEqual({ project_id: 'P1', run_id: 'R2' });
  });

  it('starts nothing when a running job rewrites its own record (progress, lease)', () => {
    expect(jobStartedBy(run('R1', 'running', { progress: { created: 200 } }), run('R1', 'running'))).toBeUndefined();
  });

  it('starts nothing for a job that ended, or a record of no job', () => {
    expect(jobStartedBy(run('R1', 'completed'), run('R1', 'running'))).toBeUndefined();
    expect(jobStartedBy({ entity: 'control', status: 'running' }, undefined)).toBeUndefined();
    expect(jobStartedBy(undefined, run('R1', 'running'))).toBeUndefined();
  });

  it('queues a recalculation for every request folded into the marker, and none when the job stops it', () => {
    expect(jobStartedBy(marker(2), marker(1))).toEqual({ queue: 'recalculate', message: { system_id: 'S1' }, token: '2' });
    expect(jobStartedBy(marker(1, { stopped: 'authorisation_lost' }), marker(1))).toBeUndefined();
  });

  it('starts a generation queued on an existing output row, and not its own progress', () => {
    const row = (id: string, status: string) => ({ entity: 'document', id: 'D1', project_id: 'P1', generation: { id, status } });
    expect(jobStartedBy(row('G2', 'queued'), row('G1', 'completed'))?.message).toEqual({ project_id: 'P1', document_id: 'D1', generation_id: 'G2' });
    expect(jobStartedBy(row('G2', 'running'), row('G2', 'queued'))).toBeUndefined();
  });
  it("starts an import run's job with the artefact it reads", () => {
    const importRun = { entity: 'import-run', status: 'running', provider_id: 'V1', artefact_id: 'A1', run_id: 'R1' };
    expect(jobStartedBy(importRun, undefined)).toEqual({ queue: 'import', message: { provider_id: 'V1', artefact_id: 'A1', run_id: 'R1' }, token: 'R1' });
  });

  it("starts a purge with its release, and a whole provider's without one", () => {
    const purge = { entity: 'provider-purge', provider_id: 'V1', requested_at: '2026-01-01T00:00:00.000Z' };
    expect(jobStartedBy({ ...purge, release_id: 'R1' }, undefined)?.message).toEqual({ provider_id: 'V1', release_id: 'R1' });
    expect(jobStartedBy({ ...purge, release_id: null }, undefined)?.message).toEqual({ provider_id: 'V1' });
  });

  it('starts nothing for a record in the state that asks for a job but without what the job reads', () => {
    expect(jobStartedBy({ entity: 'upload', status: 'quarantine' }, undefined)).toBeUndefined();
    expect(jobStartedBy({ entity: 'provider-purge', requested_at: '2026-01-01T00:00:00.000Z' }, undefined)).toBeUndefined();
    expect(jobStartedBy(marker(1, { subject: null }), undefined)).toBeUndefined();
  });
});

describe('dispatchStream', () => {
  const sqs = mockClient(SQSClient);
  const record = (sequence: string, item: Record<string, unknown>): DynamoDBRecord => ({
    eventName: 'INSERT',
    dynamodb: { SequenceNumber: sequence, NewImage: marshall(item) as never },
  });

  beforeEach(() => {
    sqs.reset();
    resetSqsClient();
    process.env[queueUrlVariable('scan')] = 'https://sqs.test/scan';
    process.env[queueUrlVariable('purge')] = 'https://sqs.test/purge';
  });
  afterEach(() => resetSqsClient());

  it('sends each new job to its queue in stream order, skipping records that start none', async () => {
    sqs.on(SendMessageCommand).resolves({});
    const out = await dispatchStream({
      Records: [
        record('1', { entity: 'upload', id: 'U1', status: 'quarantine' }),
        record('2', { entity: 'control', status: 'running' }),
        record('3', { entity: 'provider-purge', provider_id: 'V1', release_id: 'R1', requested_at: 't' }),
      ],
    });
    expect(out).toEqual({ batchItemFailures: [] });
    expect(sqs.commandCalls(SendMessageCommand).map((c) => c.args[0].input)).toEqual([
      { QueueUrl: 'https://sqs.test/scan', MessageBody: JSON.stringify({ upload_id: 'U1' }) },
      { QueueUrl: 'https://sqs.test/purge', MessageBody: JSON.stringify({ provider_id: 'V1', release_id: 'R1' }) },
    ]);
  });

  it('reports the first record it could not send and sends nothing after it, so that the mapping retries from there', async () => {
    sqs.on(SendMessageCommand).rejectsOnce(new Error('throttled')).resolves({});
    const out = await dispatchStream({
      Records: [record('7', { entity: 'upload', id: 'U1', status: 'quarantine' }), record('8', { entity: 'upload', id: 'U2', status: 'quarantine' })],
    });
    expect(out).toEqual({ batchItemFailures: [{ itemIdentifier: '7' }] });
    expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(1);
  });
});
