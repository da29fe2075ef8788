import { Duration, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { AREAS } from '../lib/files/storage.js';
import { GSIS } from '../lib/store/keys.js';
import { lambdaBundling } from './bundling.js';
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

/**
 * One Lambda of the application (an HTTP group, the meta function or a worker) with its own log
 * group and role. The role starts with nothing but log writes and traces; callers add exactly the
 * data access the function needs.
 */
export class AppFunction extends Construct {
  readonly function: NodejsFunction;
  readonly role: Role;

  constructor(scope: Construct, id: string, props: AppFunctionProps) {
    super(scope, id);
    const logGroup = new LogGroup(this, 'Logs', { retention: RetentionDays.THREE_MONTHS });
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: props.description,
    });
    logGroup.grantWrite(this.role);

    this.function = new NodejsFunction(this, 'Function', {
      entry: props.entry,
      handler: 'handler',
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      // Lambda CPU scales with memory; 1 GB keeps cold starts of the zod and SDK bundle short.
      memorySize: 1024,
      timeout: props.timeout ?? HTTP_TIMEOUT,
      role: this.role,
      logGroup,
      tracing: Tracing.ACTIVE,
      bundling: lambdaBundling(),
      environment: { NODE_OPTIONS: '--enable-source-maps', ...props.environment },
      ...(props.asyncFailures
        ? { deadLetterQueue: props.asyncFailures.deadLetterQueue, retryAttempts: props.asyncFailures.retryAttempts }
        : {}),
    });

    Validations.of(this.function).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'Node.js 22 is the runtime the design fixes (DESIGN.md section 8) and the one the dependency set was tested on; moving to a newer runtime is a deliberate upgrade, not a synth-time default.',
    });
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'Active tracing needs xray:PutTraceSegments and xray:PutTelemetryRecords, which support no resource-level permissions; this is the only wildcard in the role.',
    });
  }

  /**
   * Item-level access to the table and its indexes, without Scan or BatchWriteItem (DESIGN.md
   * section 5: every access pattern is a key lookup or a Query). Transactions need no action of
   * their own: DynamoDB authorizes each item of a TransactWriteItems by its per-item action.
   */
  grantTableData(table: ITable): void {
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [
          'dynamodb:GetItem',
          'dynamodb:BatchGetItem',
          'dynamodb:Query',
          'dynamodb:ConditionCheckItem',
          'dynamodb:PutItem',
          'dynamodb:UpdateItem',
          'dynamodb:DeleteItem',
        ],
        resources: [table.tableArn, ...GSIS.map((gsi) => `${table.tableArn}/index/${gsi.name}`)],
      }),
    );
  }

  /**
   * Objects of the file areas (lib/files/storage.ts) and nothing else of the bucket. CopyObject is
   * GetObject on the source plus PutObject on the target; a presigned POST is exercised as the
   * signer's PutObject on its key. ListBucket lists opaque keys only, and without it S3 answers a
   * missing key with 403 instead of 404, which the storage layer reads as "no such object".
   */
  grantFileAreas(bucket: IBucket): void {
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
        resources: Object.values(AREAS).map((area) => bucket.arnForObjects(`${area}*`)),
      }),
    );
    this.role.addToPrincipalPolicy(new PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn] }));
    Validations.of(this.role).acknowledge(...areaAcknowledgements(bucket, Object.values(AREAS)));
  }

  /** Reading released files only: what a download needs, and no write anywhere in the bucket. */
  grantFileReads(bucket: IBucket): void {
    this.role.addToPrincipalPolicy(new PolicyStatement({ actions: ['s3:GetObject'], resources: [bucket.arnForObjects(`${AREAS.released}*`)] }));
    this.role.addToPrincipalPolicy(new PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn] }));
    Validations.of(this.role).acknowledge(...areaAcknowledgements(bucket, [AREAS.released]));
  }

  /** Enqueueing only: the SDK is given each queue URL, so GetQueueUrl and attribute reads are not needed. */
  grantSendJobs(queues: readonly IQueue[]): void {
    if (queues.length === 0) return;
    this.role.addToPrincipalPolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: queues.map((q) => q.queueArn) }));
  }
}

/** The wildcard findings of object grants on some areas of the files bucket, acknowledged one by one. */
export function areaAcknowledgements(bucket: IBucket, areas: readonly string[]): { id: string; reason: string }[] {
  return areas.map((area) => ({
    id: `AwsSolutions-IAM5[Resource::${nagBucketArn(bucket)}/${area}*]`,
    reason: `Keys under ${area} are opaque ULIDs created at run time (DESIGN.md section 6), so object access can only be granted on the area prefix; the grant covers that area of the files bucket and no other key.`,
  }));
}
