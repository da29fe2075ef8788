import { fileURLToPath } from 'node:url';
import { Duration, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Function as LambdaFunction, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { queueUrlVariable, type QueueName } from '../lib/queues/queues.js';
import { functionCode } from './function-code.js';
import { permissionsOfCommands, type ResourceRef } from './grants.js';
import { readManifest, REGENERATE_HINT } from './recorded-commands.js';
import { nagBucketArn } from './shared-bucket.js';

/** Below API Gateway's 29 s integration limit, so a slow call ends in our own logs, not a bare 504. */
const HTTP_TIMEOUT = Duration.seconds(28);

export interface AppFunctionProps {
  entry: string;
  description: string;
  environment?: Record<string, string>;
  /** Defaults to the HTTP timeout; workers set their own. */
  timeout?: Duration;
  /** Asynchronous invocations (EventBridge): where an event goes once Lambda's own retries are spent. */
  asyncFailures?: { deadLetterQueue: IQueue; retryAttempts: number };
}

const FUNCTIONS_DIR = fileURLToPath(new URL('../functions/', import.meta.url));

/**
 * One Lambda of the application (an HTTP group, the meta function or a worker) with its own log
 * group and role. The role starts with nothing but log writes and traces; grantRecorded adds the
 * data access the function was recorded using.
 */
export class AppFunction extends Construct {
  readonly function: LambdaFunction;
  readonly role: Role;
  /** The function's name in infra/recorded-commands.json: its entry module under functions/ (`workers/populate`). */
  readonly recordedAs: string;

  constructor(scope: Construct, id: string, props: AppFunctionProps) {
    super(scope, id);
    if (!props.entry.startsWith(FUNCTIONS_DIR)) throw new Error(`a function's entry lives under functions/, got ${props.entry}`);
    this.recordedAs = props.entry.slice(FUNCTIONS_DIR.length).replace(/\.ts$/, '');
    const logGroup = new LogGroup(this, 'Logs', { retention: RetentionDays.THREE_MONTHS });
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: props.description,
    });
    logGroup.grantWrite(this.role);

    this.function = new LambdaFunction(this, 'Function', {
      code: functionCode(props.entry),
      handler: 'index.handler',
      description: props.description,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      // Lambda CPU scales with memory; 1 GB keeps cold starts of the zod and SDK bundle short.
      memorySize: 1024,
      timeout: props.timeout ?? HTTP_TIMEOUT,
      role: this.role,
      logGroup,
      tracing: Tracing.ACTIVE,
      // Without NODE_OPTIONS=--enable-source-maps, whose loading of the maps costs about 20 ms CPU of
      // every cold start: lib/log.ts maps the stacks of the errors it logs, from the maps beside the code.
      environment: props.environment,
      ...(props.asyncFailures ? { deadLetterQueue: props.asyncFailures.deadLetterQueue, retryAttempts: props.asyncFailures.retryAttempts } : {}),
    });

    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Active tracing needs xray:PutTraceSegments and xray:PutTelemetryRecords, which support no resource-level permissions; this is the only wildcard in the role.',
    });
  }

  /**
   * Exactly what the function's recorded commands need (infra/recorded-commands.json, mapped by
   * infra/grants.ts), on the resources they touched: the table or the indexes it queried, the
   * bucket areas, the queues. A queue it sends to also gets its URL variable. `consumes` is the
   * queue the function is fed from, whose consuming actions the event source mapping grants.
   */
  grantRecorded(targets: GrantTargets): void {
    const commands = readManifest()[this.recordedAs];
    if (!commands) throw new Error(`infra/recorded-commands.json records no command of ${this.recordedAs}. ${REGENERATE_HINT}`);
    const byAction = new Map<string, Set<string>>();
    const areas = new Set<string>();
    for (const p of permissionsOfCommands(commands, targets.consumes)) {
      const arn = this.arnOf(p.resource, targets);
      if (!byAction.has(p.action)) byAction.set(p.action, new Set());
      byAction.get(p.action)!.add(arn);
      if (p.resource.kind === 'objects' && p.resource.area.endsWith('/')) areas.add(p.resource.area);
      if (p.resource.kind === 'queue')
        this.function.addEnvironment(queueUrlVariable(p.resource.name as QueueName), targets.queues!.get(p.resource.name as QueueName)!.queueUrl);
    }
    for (const [action, resources] of byAction) this.role.addToPrincipalPolicy(new PolicyStatement({ actions: [action], resources: [...resources] }));
    if (targets.bucket && areas.size > 0) Validations.of(this.role).acknowledge(...areaAcknowledgements(targets.bucket, [...areas]));
  }

  private arnOf(resource: ResourceRef, targets: GrantTargets): string {
    const missing = (what: string) => new Error(`${this.recordedAs} was recorded using ${what}, which its stack does not give it`);
    switch (resource.kind) {
      case 'table':
        return targets.table.tableArn;
      case 'index':
        return `${targets.table.tableArn}/index/${resource.name}`;
      case 'bucket':
      case 'objects': {
        if (!targets.bucket) throw missing('the files bucket');
        return resource.kind === 'bucket'
          ? targets.bucket.bucketArn
          : targets.bucket.arnForObjects(resource.area.endsWith('/') ? `${resource.area}*` : resource.area);
      }
      case 'queue': {
        const queue = targets.queues?.get(resource.name as QueueName);
        if (!queue) throw missing(`the ${resource.name} queue`);
        return queue.queueArn;
      }
    }
  }
}

/** What a function's grants may name: the stacks pass their table, bucket and queues. */
export interface GrantTargets {
  table: ITable;
  bucket?: IBucket;
  queues?: ReadonlyMap<QueueName, IQueue>;
  consumes?: QueueName;
}

/** The wildcard findings of object grants on some areas of the files bucket, acknowledged one by one. */
export function areaAcknowledgements(bucket: IBucket, areas: readonly string[]): { id: string; reason: string }[] {
  return areas.map((area) => ({
    id: `AwsSolutions-IAM5[Resource::${nagBucketArn(bucket)}/${area}*]`,
    reason: `Keys under ${area} are opaque ULIDs created at run time (DESIGN.md section 6), so object access can only be granted on the area prefix; the grant covers that area of the files bucket and no other key.`,
  }));
}
