import { fileURLToPath } from 'node:url';
import { Duration, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption, type IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { streamFilterPatterns } from '../lib/jobs/job-records.js';
import { QUEUES, queueUrlVariable, type QueueName } from '../lib/queues/queues.js';
import { SWEEP_INTERVAL_SECONDS } from '../lib/queues/recovery.js';
import { AppFunction } from './app-function.js';
import { AWS_SETTINGS, tunableSettings } from './environment.js';
import { MalwareProtection } from './malware-protection.js';
import { deadLettersAlarm, functionErrorsAlarm, notify } from './observability.js';
import { importSharedBucket, type SharedBucket } from './shared-bucket.js';
import { settingOutput } from './stage.js';

const WORKER_FUNCTIONS = fileURLToPath(new URL('../functions/workers/', import.meta.url));
/**
 * SQS's maximum, on every queue: a dead letter waits two weeks for someone to look at it and redrive
 * it, and a job held up on its queue (its worker failing for days) is not dropped sooner, after
 * SQS's default of four days.
 */
const RETENTION = Duration.days(14);

/**
 * The stream mapping of the dispatcher. A batch that fails is split in two and retried, each
 * half on its own, until the failing record is alone; a record still failing after these attempts
 * goes to the dispatch dead-letter queue (as a pointer to the record in the stream), where its
 * alarm asks for someone to look. The stream keeps records for 24 hours, so they are retried
 * well within it.
 */
export const DISPATCH = { batchSize: 100, retryAttempts: 10, maxRecordAge: Duration.hours(6), timeout: Duration.seconds(60) } as const;

/**
 * A worker stops at half its queue's visibility timeout, so that a batch which runs into its timeout
 * is over well before its messages become visible again and another worker picks them up.
 */
export function workerTimeout(visibilityTimeoutSeconds: number): Duration {
  const seconds = Math.floor(visibilityTimeoutSeconds / 2);
  if (seconds < 1) throw new Error(`visibility timeout ${visibilityTimeoutSeconds} s leaves the worker no time`);
  return Duration.seconds(seconds);
}

export interface WorkersStackProps extends StackProps {
  table: ITable;
  bucket: SharedBucket;
  alarmTopicArn?: string;
}

export interface JobQueue {
  queue: Queue;
  deadLetters: Queue;
  worker: AppFunction;
}

/**
 * Asynchronous work (DESIGN.md section 6): one queue, dead-letter queue and worker per entry of
 * QUEUES, and the GuardDuty malware scan with its verdict function. The queues live here, with
 * their consumers; the API stack receives them to send jobs and is never referenced from here.
 */
export class WorkersStack extends Stack {
  readonly jobs = new Map<QueueName, JobQueue>();
  readonly malwareProtection: MalwareProtection;
  readonly sweep: AppFunction;
  readonly dispatch: { function: AppFunction; deadLetters: Queue };

  constructor(scope: Construct, id: string, props: WorkersStackProps) {
    super(scope, id, props);
    const bucket = importSharedBucket(this, 'FilesBucket', props.bucket);
    const alarms: Alarm[] = [];

    const entries = Object.entries(QUEUES) as [QueueName, (typeof QUEUES)[QueueName]][];
    // Every queue first: a worker may send jobs to another queue, and its grant names that queue.
    const queues = new Map(
      entries.map(([name, spec]) => {
        const deadLetters = new Queue(this, `DeadLetters-${name}`, {
          encryption: QueueEncryption.SQS_MANAGED,
          enforceSSL: true,
          retentionPeriod: RETENTION,
        });
        const queue = new Queue(this, `Queue-${name}`, {
          encryption: QueueEncryption.SQS_MANAGED,
          enforceSSL: true,
          visibilityTimeout: Duration.seconds(spec.visibilityTimeoutSeconds),
          retentionPeriod: RETENTION,
          deadLetterQueue: { queue: deadLetters, maxReceiveCount: spec.maxReceiveCount },
        });
        return [name, { queue, deadLetters }] as const;
      }),
    );
    const queueOf = new Map([...queues].map(([name, q]) => [name, q.queue as IQueue]));

    for (const [name, spec] of entries) {
      const { queue, deadLetters } = queues.get(name)!;
      const worker = new AppFunction(this, `Worker-${name}`, {
        entry: `${WORKER_FUNCTIONS}${spec.worker}.ts`,
        description: `Worker of the ${name} job queue`,
        timeout: workerTimeout(spec.visibilityTimeoutSeconds),
        // Jobs revalidate the token records they act for, but never hash a credential: no secret.
        // The queue URL lets a job shorten its own retry delay (ChangeMessageVisibility, part of consuming).
        // Tunable settings too: jobs read the same limits as the requests that queue them (the generation lease).
        environment: {
          TABLE_NAME: props.table.tableName,
          BUCKET_NAME: bucket.bucketName,
          [queueUrlVariable(name)]: queue.queueUrl,
          ...AWS_SETTINGS,
          ...tunableSettings(this),
        },
      });
      worker.grantRecorded({ table: props.table, bucket, queues: queueOf, consumes: name });
      worker.function.addEventSource(new SqsEventSource(queue, { batchSize: spec.batchSize, reportBatchItemFailures: true }));
      this.jobs.set(name, { queue, deadLetters, worker });
      settingOutput(this, queueUrlVariable(name), queue.queueUrl, `URL of the ${name} job queue`);

      alarms.push(
        deadLettersAlarm(
          this,
          `DeadLettersAlarm-${name}`,
          deadLetters,
          `Jobs of the ${name} queue failed ${spec.maxReceiveCount} times and were dead-lettered`,
        ),
        functionErrorsAlarm(this, `WorkerErrors-${name}`, worker.function, `The ${name} worker crashed or timed out`),
      );
    }

    this.sweep = this.addSweep(props, alarms);
    this.dispatch = this.addDispatch(props, alarms);

    this.malwareProtection = new MalwareProtection(this, 'MalwareProtection', { table: props.table, bucket });
    alarms.push(
      deadLettersAlarm(
        this,
        'DeadLettersAlarm-verdicts',
        this.malwareProtection.deadLetters,
        'GuardDuty scan results could not be applied and were dead-lettered',
      ),
      functionErrorsAlarm(this, 'VerdictErrors', this.malwareProtection.verdict.function, 'The verdict function failed to apply a GuardDuty scan result'),
    );
    notify(this, alarms, props.alarmTopicArn);
  }

  /**
   * Work whose worker died or whose job was lost: a population or import run whose lease ran out,
   * an upload still unscanned, a recalculation or a purge whose marker waits. Every minute this
   * schedule queues such work again (lib/queues/recovery.ts), and ends as failed what has been
   * queued again too often.
   */
  private addSweep(props: WorkersStackProps, alarms: Alarm[]): AppFunction {
    const requeued: QueueName[] = ['populate', 'import', 'scan', 'recalculate', 'purge'];
    const sweep = new AppFunction(this, 'Sweep', {
      entry: `${WORKER_FUNCTIONS}sweep.ts`,
      description: 'Queues again stalled population and import runs, scans, recalculations and purges',
      timeout: Duration.minutes(1),
      environment: {
        TABLE_NAME: props.table.tableName,
        ...Object.fromEntries(requeued.map((name) => [queueUrlVariable(name), this.jobs.get(name)!.queue.queueUrl])),
        ...AWS_SETTINGS,
      },
    });
    sweep.grantRecorded({ table: props.table, queues: this.queues });
    new Rule(this, 'SweepSchedule', { schedule: Schedule.rate(Duration.seconds(SWEEP_INTERVAL_SECONDS)), targets: [new LambdaFunction(sweep.function)] });
    alarms.push(functionErrorsAlarm(this, 'SweepErrors', sweep.function, 'The sweep of stalled jobs failed'));
    return sweep;
  }

  /**
   * The transactional outbox's relay: the table's stream, filtered to the writes of job records
   * (lib/jobs/job-records.ts), feeds a function that sends each new job to its queue. A Lambda
   * function rather than EventBridge Pipes: one consumer of the stream for every queue (a pipe has
   * one target, and a stream shard serves at most two readers without throttling), and the old
   * image at hand to tell a new job from a rewrite of a running one.
   */
  private addDispatch(props: WorkersStackProps, alarms: Alarm[]): WorkersStack['dispatch'] {
    const fn = new AppFunction(this, 'Dispatch', {
      entry: `${WORKER_FUNCTIONS}dispatch.ts`,
      description: 'Sends the job each committed job record asks for to its queue (from the table stream)',
      timeout: DISPATCH.timeout,
      environment: { ...AWS_SETTINGS },
    });
    fn.grantRecorded({ table: props.table, queues: this.queues });
    const deadLetters = new Queue(this, 'DeadLetters-dispatch', { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: RETENTION });
    Validations.of(deadLetters).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is the on-failure destination of the dispatcher stream mapping, a dead-letter queue that cdk-nag does not recognise as one; nothing consumes it, and its depth alarms.',
    });
    fn.function.addEventSource(
      new DynamoEventSource(props.table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: DISPATCH.batchSize,
        bisectBatchOnError: true,
        retryAttempts: DISPATCH.retryAttempts,
        maxRecordAge: DISPATCH.maxRecordAge,
        reportBatchItemFailures: true,
        onFailure: new SqsDlq(deadLetters),
        filters: streamFilterPatterns().map((pattern) => FilterCriteria.filter(pattern)),
      }),
    );
    alarms.push(
      deadLettersAlarm(this, 'DeadLettersAlarm-dispatch', deadLetters, 'Job records could not be dispatched to their queues after every retry'),
      functionErrorsAlarm(this, 'DispatchErrors', fn.function, 'The dispatcher of job records failed'),
    );
    return { function: fn, deadLetters };
  }

  get queues(): ReadonlyMap<QueueName, IQueue> {
    return new Map([...this.jobs].map(([name, job]) => [name, job.queue]));
  }
}
