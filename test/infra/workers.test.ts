import { beforeAll, describe, expect, it } from 'vitest';
import type { AppFunction } from '../../infra/app-function.js';
import { SCANNED_AREAS, SCAN_RESULT_DETAIL_TYPE } from '../../infra/malware-protection.js';
import { AREAS } from '../../lib/files/storage.js';
import { marshall } from '@aws-sdk/util-dynamodb';
import { DISPATCH } from '../../infra/workers-stack.js';
import { JOB_RECORDS } from '../../lib/jobs/job-records.js';
import { QUEUES, type QueueName } from '../../lib/queues/queues.js';
import { actionsIn, idOf, logicalIdOf, resourcesIn, resourcesOf, statementsOf, synthesize, textOf, type Statement, type Synthesized } from './fixture.js';

const queueEntries = Object.entries(QUEUES) as [QueueName, (typeof QUEUES)[QueueName]][];

/** Lambda's event filtering, for the parts of its syntax the patterns use: nested keys, and a list of accepted values. */
function matches(pattern: unknown, value: unknown): boolean {
  if (Array.isArray(pattern)) return pattern.some((accepted) => accepted === value);
  if (typeof pattern !== 'object' || pattern === null) return false;
  return Object.entries(pattern).every(
    ([key, inner]) => typeof value === 'object' && value !== null && matches(inner, (value as Record<string, unknown>)[key]),
  );
}

/** A stream record of a write, as Lambda's filter sees it. */
const streamRecord = (item: Record<string, unknown>) => ({ eventName: 'MODIFY', dynamodb: { NewImage: marshall(item, { removeUndefinedValues: true }) } });

/** The write that starts each kind of job, and one like it that does not. */
const JOB_WRITES: Record<string, { starts: Record<string, unknown>; settled: Record<string, unknown> }> = {
  upload: { starts: { entity: 'upload', id: 'U1', status: 'quarantine' }, settled: { entity: 'upload', id: 'U1', status: 'ready' } },
  'population-run': {
    starts: { PK: 'PROJECT#P1', entity: 'population-run', run_id: 'R1', status: 'running' },
    settled: { PK: 'PROJECT#P1', entity: 'population-run', run_id: 'R1', status: 'completed' },
  },
  document: {
    starts: { entity: 'document', id: 'D1', project_id: 'P1', generation: { id: 'G1', status: 'queued' } },
    settled: { entity: 'document', id: 'D1', project_id: 'P1', generation: { id: 'G1', status: 'completed' } },
  },
  'import-run': {
    starts: { entity: 'import-run', provider_id: 'V1', artefact_id: 'A1', run_id: 'R1', status: 'running' },
    settled: { entity: 'import-run', provider_id: 'V1', artefact_id: 'A1', run_id: 'R1', status: 'failed' },
  },
  'applicability-recalculation': {
    starts: { entity: 'applicability-recalculation', subject: { system_id: 'S1' }, generation: 1 },
    settled: { entity: 'control', subject: { system_id: 'S1' }, generation: 1 },
  },
  'provider-purge': {
    starts: { entity: 'provider-purge', provider_id: 'V1', requested_at: '2026-01-01T00:00:00.000Z' },
    settled: { entity: 'provider', provider_id: 'V1', requested_at: '2026-01-01T00:00:00.000Z' },
  },
};

describe('WorkersStack', () => {
  let s: Synthesized;
  let bucketArn: string;
  beforeAll(() => {
    s = synthesize();
    bucketArn = `<import:${s.data.sharedBucket.arnExportName}>`;
  }, 60_000);

  const jobOf = (name: QueueName) => s.workers.jobs.get(name)!;
  const workerFunctions = (): [string, AppFunction][] => [
    ...queueEntries.map(([name]) => [`worker ${name}`, jobOf(name).worker] as [string, AppFunction]),
    ['verdict', s.workers.malwareProtection.verdict],
  ];
  const functionProps = (fn: AppFunction) => resourcesOf(s.workersTemplate, 'AWS::Lambda::Function')[logicalIdOf(fn)]!.Properties;
  const queueProps = (id: string) => resourcesOf(s.workersTemplate, 'AWS::SQS::Queue')[id]!.Properties;

  it('has one queue with its dead-letter queue per QUEUES entry, redriven and timed as QUEUES says', () => {
    expect([...s.workers.jobs.keys()].sort()).toEqual(Object.keys(QUEUES).sort());
    for (const [name, spec] of queueEntries) {
      const { queue, deadLetters } = jobOf(name);
      expect(queueProps(idOf(queue))).toMatchObject({
        VisibilityTimeout: spec.visibilityTimeoutSeconds,
        RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [idOf(deadLetters), 'Arn'] }, maxReceiveCount: spec.maxReceiveCount },
      });
      expect(queueProps(idOf(deadLetters))).toMatchObject({ MessageRetentionPeriod: 14 * 24 * 3600 });
    }
  });

  it('keeps a job on its queue as long as its dead-letter queue would keep it (14 days)', () => {
    for (const [name] of queueEntries) expect(queueProps(idOf(jobOf(name).queue)), name).toMatchObject({ MessageRetentionPeriod: 14 * 24 * 3600 });
  });

  it('encrypts every queue and refuses requests without TLS', () => {
    const queues = resourcesOf(s.workersTemplate, 'AWS::SQS::Queue');
    const policies = Object.values(resourcesOf(s.workersTemplate, 'AWS::SQS::QueuePolicy')).map((p) => p.Properties);
    expect(Object.keys(queues)).toHaveLength(queueEntries.length * 2 + 2);
    for (const [id, queue] of Object.entries(queues)) {
      expect(queue.Properties.SqsManagedSseEnabled ?? queue.Properties.KmsMasterKeyId, id).toBeTruthy();
      const policy = policies.find((p) => JSON.stringify(p.Queues).includes(`"${id}"`));
      expect((policy!.PolicyDocument as { Statement: Statement[] }).Statement).toContainEqual(
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      );
    }
  });

  it('runs each worker on Node.js 24 arm64, stopping before its messages become visible again', () => {
    for (const [name, spec] of queueEntries) {
      const props = functionProps(jobOf(name).worker);
      expect(props).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], TracingConfig: { Mode: 'Active' } });
      expect(props.Timeout as number).toBeLessThan(spec.visibilityTimeoutSeconds);
    }
  });

  it('feeds each worker from its queue in batches, reporting failures item by item', () => {
    const mappings = Object.values(resourcesOf(s.workersTemplate, 'AWS::Lambda::EventSourceMapping'))
      .map((m) => m.Properties)
      .filter((m) => JSON.stringify(m.EventSourceArn).includes('Queue'));
    expect(mappings).toHaveLength(queueEntries.length);
    for (const [name, spec] of queueEntries) {
      const { queue, worker } = jobOf(name);
      expect(mappings).toContainEqual(
        expect.objectContaining({
          EventSourceArn: { 'Fn::GetAtt': [idOf(queue), 'Arn'] },
          FunctionName: { Ref: logicalIdOf(worker) },
          BatchSize: spec.batchSize,
          FunctionResponseTypes: ['ReportBatchItemFailures'],
        }),
      );
    }
  });

  it('configures workers and the verdict function for GuardDuty verdicts, without the token-hash secret', () => {
    for (const [label, fn] of workerFunctions()) {
      const variables = (functionProps(fn).Environment as { Variables: Record<string, unknown> }).Variables;
      expect(Object.keys(variables), label).toEqual(expect.arrayContaining(['TABLE_NAME', 'BUCKET_NAME']));
      expect(variables.MALWARE_SCANNER, label).toBe('guardduty');
      expect(variables.TOKEN_HASH_SECRET_ARN, label).toBeUndefined();
    }
  });

  // Which actions each worker gets is derived from its recorded commands (test/infra/grants.test.ts).
  it('grants objects in the file areas only: no Scan, no whole-bucket or wildcard actions', () => {
    const areaObjects = Object.values(AREAS).map((area) => `${bucketArn}/${area}*`);
    for (const [label, fn] of workerFunctions()) {
      const statements = statementsOf(s.workersTemplate, fn);
      const actions = actionsIn(statements);
      expect(
        actions.filter((a) => a === 'dynamodb:Scan' || a.endsWith('*') || a.startsWith('secretsmanager:')),
        label,
      ).toEqual([]);
      for (const st of statements.filter((x) => actionsIn([x]).some((a) => a.startsWith('s3:')))) {
        const resources = resourcesIn(st);
        expect(
          resources.filter((r) => r !== bucketArn && !areaObjects.includes(r)),
          label,
        ).toEqual([]);
        if (resources.includes(bucketArn)) expect(actionsIn([st]), label).toEqual(['s3:ListBucket']);
      }
    }
  });

  it('lets a worker consume its own queue only, and the verdict function send only to its dead-letter queue', () => {
    for (const [name] of queueEntries) {
      const sqs = statementsOf(s.workersTemplate, jobOf(name).worker).filter((st) => actionsIn([st]).some((a) => a.startsWith('sqs:')));
      expect(actionsIn(sqs)).toContain('sqs:ReceiveMessage');
      expect(actionsIn(sqs)).not.toContain('sqs:SendMessage');
      expect(sqs.flatMap(resourcesIn)).toEqual([`<${idOf(jobOf(name).queue)}.Arn>`]);
    }
    const verdict = s.workers.malwareProtection;
    const sqs = statementsOf(s.workersTemplate, verdict.verdict).filter((st) => actionsIn([st]).some((a) => a.startsWith('sqs:')));
    expect(sqs.map((st) => [actionsIn([st]), resourcesIn(st)])).toEqual([[['sqs:SendMessage'], [`<${idOf(verdict.deadLetters)}.Arn>`]]]);
  });

  it('alarms on every dead-letter queue and on worker and verdict errors', () => {
    const alarms = Object.values(resourcesOf(s.workersTemplate, 'AWS::CloudWatch::Alarm')).map((a) => a.Properties);
    const deadLetterQueues = [
      ...queueEntries.map(([name]) => jobOf(name).deadLetters),
      s.workers.malwareProtection.deadLetters,
      s.workers.dispatch.deadLetters,
    ];
    for (const queue of deadLetterQueues) {
      expect(alarms).toContainEqual(
        expect.objectContaining({
          Namespace: 'AWS/SQS',
          MetricName: 'ApproximateNumberOfMessagesVisible',
          Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [idOf(queue), 'QueueName'] } }],
          Threshold: 0,
          ComparisonOperator: 'GreaterThanThreshold',
        }),
      );
    }
    for (const fn of [...workerFunctions().map(([, f]) => f), s.workers.sweep, s.workers.dispatch.function]) {
      expect(alarms).toContainEqual(
        expect.objectContaining({ Namespace: 'AWS/Lambda', MetricName: 'Errors', Dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalIdOf(fn) } }] }),
      );
    }
    expect(alarms).toHaveLength(deadLetterQueues.length + workerFunctions().length + 2);
  });

  const dispatchMapping = () => {
    const mappings = Object.values(resourcesOf(s.workersTemplate, 'AWS::Lambda::EventSourceMapping')).map((m) => m.Properties);
    return mappings.filter((m) => JSON.stringify(m.FunctionName).includes(logicalIdOf(s.workers.dispatch.function)));
  };

  it('feeds the dispatcher from the table stream from its oldest record, item by item, bisecting failed batches before a dead-letter queue', () => {
    const mappings = dispatchMapping();
    expect(mappings).toHaveLength(1);
    expect(textOf(mappings[0]!.EventSourceArn)).toBe(textOf(s.workers.resolve(s.data.table.tableStreamArn)));
    expect(mappings[0]).toMatchObject({
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: DISPATCH.batchSize,
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: DISPATCH.retryAttempts,
      MaximumRecordAgeInSeconds: DISPATCH.maxRecordAge.toSeconds(),
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [idOf(s.workers.dispatch.deadLetters), 'Arn'] } } },
    });
  });

  it('filters the stream to the writes that start a job of each kind, within five filters', () => {
    const filters = (dispatchMapping()[0]!.FilterCriteria as { Filters: { Pattern: string }[] }).Filters.map((f) => JSON.parse(f.Pattern) as unknown);
    expect(filters.length).toBeLessThanOrEqual(5);
    expect(Object.keys(JOB_WRITES).sort()).toEqual(JOB_RECORDS.map((r) => r.entity).sort());
    for (const [entity, { starts, settled }] of Object.entries(JOB_WRITES)) {
      expect(
        filters.some((f) => matches(f, streamRecord(starts))),
        `${entity} starting`,
      ).toBe(true);
      expect(
        filters.some((f) => matches(f, streamRecord(settled))),
        `${entity} settled`,
      ).toBe(false);
    }
    expect(filters.some((f) => matches(f, { eventName: 'REMOVE', dynamodb: { OldImage: marshall(JOB_WRITES.upload!.starts) } }))).toBe(false);
  });

  it('lets the dispatcher read the table stream, send to every job queue and to its dead-letter queue, and nothing else', () => {
    const statements = statementsOf(s.workersTemplate, s.workers.dispatch.function);
    const on = (action: string) => statements.filter((st) => actionsIn([st]).includes(action)).flatMap(resourcesIn);
    const stream = textOf(s.workers.resolve(s.data.table.tableStreamArn));
    for (const action of ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator']) expect(on(action)).toEqual([stream]);
    expect(on('sqs:SendMessage').sort()).toEqual(
      [...queueEntries.map(([name]) => `<${idOf(jobOf(name).queue)}.Arn>`), `<${idOf(s.workers.dispatch.deadLetters)}.Arn>`].sort(),
    );
    const actions = actionsIn(statements);
    expect(
      actions.filter((a) => a.startsWith('dynamodb:') && !['DescribeStream', 'GetRecords', 'GetShardIterator', 'ListStreams'].includes(a.slice(9))),
    ).toEqual([]);
    expect(actions.filter((a) => a.startsWith('s3:') || a === 'sqs:ReceiveMessage' || a.endsWith('*'))).toEqual([]);
  });

  it('runs the sweep every minute, sending only to the queues of the work it recovers', () => {
    const rules = Object.values(resourcesOf(s.workersTemplate, 'AWS::Events::Rule')).map((r) => r.Properties);
    expect(rules).toContainEqual(
      expect.objectContaining({
        ScheduleExpression: 'rate(1 minute)',
        Targets: [expect.objectContaining({ Arn: { 'Fn::GetAtt': [logicalIdOf(s.workers.sweep), 'Arn'] } })],
      }),
    );
    const sqs = statementsOf(s.workersTemplate, s.workers.sweep).filter((st) => actionsIn([st]).some((a) => a.startsWith('sqs:')));
    const recovered = ['populate', 'import', 'scan', 'recalculate', 'purge'] as const;
    expect(sqs.flatMap(resourcesIn).sort()).toEqual(recovered.map((q) => `<${idOf(jobOf(q).queue)}.Arn>`).sort());
    expect(actionsIn(sqs)).not.toContain('sqs:ReceiveMessage');
    const actions = actionsIn(statementsOf(s.workersTemplate, s.workers.sweep));
    expect(actions.filter((a) => a === 'dynamodb:Scan' || a.startsWith('s3:') || a.startsWith('secretsmanager:') || a.endsWith('*'))).toEqual([]);
  });

  it('protects the upload areas of the files bucket with GuardDuty Malware Protection for S3', () => {
    expect([...SCANNED_AREAS].sort()).toEqual([AREAS.quarantine, AREAS.sessions].sort());
    const plans = Object.values(resourcesOf(s.workersTemplate, 'AWS::GuardDuty::MalwareProtectionPlan')).map((p) => p.Properties);
    expect(plans).toEqual([
      {
        ProtectedResource: { S3Bucket: { BucketName: s.workers.resolve(s.data.bucket.bucketName), ObjectPrefixes: ['quarantine/', 'uploads/'] } },
        Actions: { Tagging: { Status: 'DISABLED' } },
        Role: { 'Fn::GetAtt': [idOf(s.workers.malwareProtection.role), 'Arn'] },
      },
    ]);
  });

  it('gives GuardDuty a role it alone assumes, reading only the scanned areas', () => {
    const role = resourcesOf(s.workersTemplate, 'AWS::IAM::Role')[idOf(s.workers.malwareProtection.role)]!.Properties;
    expect(role.AssumeRolePolicyDocument).toMatchObject({
      Statement: [{ Effect: 'Allow', Action: 'sts:AssumeRole', Principal: { Service: 'malware-protection-plan.guardduty.amazonaws.com' } }],
    });
    const statements = (role.Policies as { PolicyDocument: { Statement: Statement[] } }[]).flatMap((p) => p.PolicyDocument.Statement);
    const on = (action: string) => statements.filter((st) => actionsIn([st]).includes(action)).flatMap(resourcesIn);
    expect(on('s3:GetObject').sort()).toEqual(SCANNED_AREAS.map((area) => `${bucketArn}/${area}*`).sort());
    expect(on('s3:GetObjectVersion').sort()).toEqual(on('s3:GetObject').sort());
    expect(on('s3:PutObject')).toEqual([`${bucketArn}/malware-protection-resource-validation-object`]);
    for (const action of ['s3:ListBucket', 's3:GetBucketNotification', 's3:PutBucketNotification']) expect(on(action)).toEqual([bucketArn]);
    const managedRule = 'arn:<AWS::Partition>:events:<AWS::Region>:<AWS::AccountId>:rule/DO-NOT-DELETE-AmazonGuardDutyMalwareProtectionS3*';
    for (const action of [
      'events:PutRule',
      'events:DeleteRule',
      'events:PutTargets',
      'events:RemoveTargets',
      'events:DescribeRule',
      'events:ListTargetsByRule',
    ]) {
      expect(on(action)).toEqual([managedRule]);
    }
    expect(statements.find((st) => actionsIn([st]).includes('events:PutRule'))?.Condition).toEqual({
      StringLike: { 'events:ManagedBy': 'malware-protection-plan.guardduty.amazonaws.com' },
    });
    expect(actionsIn(statements).filter((a) => a.endsWith('*') || a === 's3:DeleteObject')).toEqual([]);
  });

  it('routes scan results for the bucket to the verdict function, with retries and a dead-letter queue', () => {
    const { verdict, deadLetters, rule } = s.workers.malwareProtection;
    const props = resourcesOf(s.workersTemplate, 'AWS::Events::Rule')[idOf(rule)]!.Properties;
    expect(props.EventPattern).toEqual({
      source: ['aws.guardduty'],
      'detail-type': [SCAN_RESULT_DETAIL_TYPE],
      detail: { s3ObjectDetails: { bucketName: [s.workers.resolve(s.data.bucket.bucketName)] } },
    });
    const targets = props.Targets as Record<string, unknown>[];
    expect(targets).toHaveLength(1);
    expect(targets[0]).toMatchObject({
      Arn: { 'Fn::GetAtt': [logicalIdOf(verdict), 'Arn'] },
      DeadLetterConfig: { Arn: { 'Fn::GetAtt': [idOf(deadLetters), 'Arn'] } },
    });
    expect((targets[0]!.RetryPolicy as { MaximumRetryAttempts: number }).MaximumRetryAttempts).toBeGreaterThan(0);
    s.workersTemplate.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { FunctionName: { Ref: logicalIdOf(verdict) }, MaximumRetryAttempts: 2 });
    expect(functionProps(verdict).DeadLetterConfig).toEqual({ TargetArn: { 'Fn::GetAtt': [idOf(deadLetters), 'Arn'] } });
  });

  // The API stack sends no job: a job starts from the record its request writes, through this stack's dispatcher.
  it('references the data stack only, and no stack references it', () => {
    expect(s.workers.dependencies.map((d) => d.stackName)).toEqual([s.data.stackName]);
    expect(s.api.dependencies.map((d) => d.stackName)).toEqual([s.data.stackName]);
    expect(JSON.stringify(s.workersTemplate.toJSON())).not.toContain(s.api.stackName);
    expect(JSON.stringify(s.dataTemplate.toJSON())).not.toContain(s.workers.stackName);
  });
});
