import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AppFunction } from '../../infra/app-function.js';
import { permissionsOfCommands, resourceKey, type ResourceRef } from '../../infra/grants.js';
import { readManifest } from '../../infra/recorded-commands.js';
import { usesOf } from '../../infra/uses.js';
import { QUEUES, type QueueName } from '../../lib/queues/queues.js';
import { activeFunctions } from '../../lib/operations/registry.js';
import { actionsIn, idOf, resourcesIn, statementsOf, synthesize, type Statement, type Synthesized } from './fixture.js';

/**
 * Grants the functions' roles hold that no recorded command accounts for, each for its reason:
 * log writes and traces of every function, the token-hash secret of the HTTP functions, the
 * consuming actions an SQS event source mapping grants its worker on its own queue, and Lambda's
 * own send to the dead-letter queue of the asynchronously invoked verdict function.
 */
const LOGS_AND_TRACES = ['logs:CreateLogStream', 'logs:PutLogEvents', 'xray:PutTraceSegments', 'xray:PutTelemetryRecords'];
const TOKEN_HASH_SECRET = ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'];
const EVENT_SOURCE_MAPPING = ['sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueUrl', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'];
const ASYNC_DEAD_LETTERS = ['sqs:SendMessage'];
/** What a DynamoDB stream event source mapping grants its function on the stream, and its on-failure queue. */
const STREAM_READ = ['dynamodb:ListStreams', 'dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'];
const ON_FAILURE = ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'];

interface Deployed {
  fn: AppFunction;
  template: Template;
  consumes?: QueueName;
  /** Whole statements this function holds for one of the reasons above. */
  ignored: (st: Statement) => boolean;
}

describe('grants derived from the recorded commands', () => {
  let s: Synthesized;
  let bucketArn: string;
  let deployed: Deployed[];
  beforeAll(() => {
    s = synthesize();
    bucketArn = `<import:${s.data.sharedBucket.arnExportName}>`;
    const onlyActions = (actions: string[]) => (st: Statement) => actionsIn([st]).every((a) => actions.includes(a));
    const verdictDeadLetters = `<${idOf(s.workers.malwareProtection.deadLetters)}.Arn>`;
    deployed = [
      ...[...s.api.groupFunctions.values()].map((fn) => ({ fn, template: s.apiTemplate, ignored: onlyActions([...LOGS_AND_TRACES, ...TOKEN_HASH_SECRET]) })),
      { fn: s.api.metaFunction, template: s.apiTemplate, ignored: onlyActions(LOGS_AND_TRACES) },
      { fn: s.api.consoleFunction, template: s.apiTemplate, ignored: onlyActions([...LOGS_AND_TRACES, ...TOKEN_HASH_SECRET]) },
      { fn: s.api.passkeysFunction, template: s.apiTemplate, ignored: onlyActions(LOGS_AND_TRACES) },
      ...[...s.workers.jobs].map(([name, job]) => ({
        fn: job.worker,
        template: s.workersTemplate,
        consumes: name,
        ignored: (st: Statement) =>
          onlyActions(LOGS_AND_TRACES)(st) || (onlyActions(EVENT_SOURCE_MAPPING)(st) && resourcesIn(st).every((r) => r === `<${idOf(job.queue)}.Arn>`)),
      })),
      { fn: s.workers.sweep, template: s.workersTemplate, ignored: onlyActions(LOGS_AND_TRACES) },
      {
        fn: s.workers.dispatch.function,
        template: s.workersTemplate,
        ignored: (st: Statement) =>
          onlyActions(LOGS_AND_TRACES)(st) ||
          onlyActions(STREAM_READ)(st) ||
          (onlyActions(ON_FAILURE)(st) && resourcesIn(st).every((r) => r === `<${idOf(s.workers.dispatch.deadLetters)}.Arn>`)),
      },
      {
        fn: s.workers.malwareProtection.verdict,
        template: s.workersTemplate,
        ignored: (st: Statement) =>
          onlyActions(LOGS_AND_TRACES)(st) || (onlyActions(ASYNC_DEAD_LETTERS)(st) && resourcesIn(st).every((r) => r === verdictDeadLetters)),
      },
    ];
  }, 60_000);

  /** A granted resource as the manifest's mapping names it, read back from the template's text. */
  function refOf(action: string, resource: string): string {
    if (resource === bucketArn) return resourceKey({ kind: 'bucket' });
    if (resource.startsWith(`${bucketArn}/`) && resource.endsWith('*')) return resourceKey({ kind: 'objects', area: resource.slice(bucketArn.length + 1, -1) });
    if (action.startsWith('sqs:')) {
      const name = (Object.keys(QUEUES) as QueueName[]).find((q) => resource.includes(idOf(s.workers.jobs.get(q)!.queue)));
      return name ? resourceKey({ kind: 'queue', name }) : `unknown queue ${resource}`;
    }
    if (action.startsWith('dynamodb:') && resource.includes(idOf(s.data.table))) {
      const index = /\/index\/([^/]+)$/.exec(resource)?.[1];
      return resourceKey(index ? ({ kind: 'index', name: index } satisfies ResourceRef) : { kind: 'table' });
    }
    return `unknown ${resource}`;
  }

  /** Every "action resource" pair a function's role allows, beyond its listed exceptions. */
  function granted(d: Deployed): string[] {
    const statements = statementsOf(d.template, d.fn).filter((st) => !d.ignored(st));
    expect(
      statements.every((st) => st.Effect === 'Allow' && st.Condition === undefined),
      d.fn.recordedAs,
    ).toBe(true);
    return [...new Set(statements.flatMap((st) => actionsIn([st]).flatMap((action) => resourcesIn(st).map((r) => `${action} ${refOf(action, r)}`))))].sort();
  }

  function needed(d: Deployed): string[] {
    const commands = readManifest()[d.fn.recordedAs] ?? {};
    return [...new Set(permissionsOfCommands(commands, d.consumes).map((p) => `${p.action} ${resourceKey(p.resource)}`))].sort();
  }

  it('allows each function exactly what its recorded commands need, on the resources they touched', () => {
    for (const d of deployed) expect(granted(d), d.fn.recordedAs).toEqual(needed(d));
  });

  it('gives the population and recalculation workers BatchWriteItem, which their bulk writes use', () => {
    for (const name of ['populate', 'recalculate'] as const) {
      expect(granted(deployed.find((d) => d.consumes === name)!)).toContain('dynamodb:BatchWriteItem table');
    }
  });

  it('gives the meta function nothing but the writes of its failed-request audit', () => {
    expect(granted(deployed.find((d) => d.fn === s.api.metaFunction)!)).toEqual(['dynamodb:PutItem table']);
  });

  it('records only functions the stacks deploy', () => {
    const names = new Set(deployed.map((d) => d.fn.recordedAs));
    expect(Object.keys(readManifest()).filter((fn) => !names.has(fn))).toEqual([]);
  });

  it('has recorded every file area use the operations of an HTTP function declare, and no send to a queue', () => {
    for (const group of activeFunctions()) {
      const uses = usesOf(group);
      const commands = readManifest()[`http/${group}`] ?? {};
      expect(commands['sqs:SendMessage'], group).toBeUndefined();
      expect(
        Object.keys(commands).some((c) => c.startsWith('s3:')),
        group,
      ).toBe(uses.files);
    }
  });
});
