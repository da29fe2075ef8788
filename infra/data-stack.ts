import { Duration, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { AttributeType, BillingMode, StreamViewType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { AREAS } from '../lib/files/storage.js';
import { GSIS, TABLE_KEYS, TABLE_STREAM } from '../lib/store/keys.js';
import type { DATA_STACK_SETTINGS } from '../lib/stages.js';
import type { SharedBucket } from './shared-bucket.js';
import { settingOutput } from './stage.js';

/**
 * Session objects wait in uploads/ until the scan releases them; a session is consumed within its
 * presigned POST's lifetime (minutes), so anything older is abandoned.
 */
const ABANDONED_UPLOAD_DAYS = 2;
/** Refused or unreleased uploads stay in quarantine/ a while for investigation, then go. */
const QUARANTINE_RETENTION_DAYS = 30;
/** Window in which an overwritten or deleted file can still be recovered from an older version. */
const NONCURRENT_RETENTION_DAYS = 30;
const ACCESS_LOG_RETENTION_DAYS = 365;

/** The stateful resources: nothing here is destroyed with the stack. */
export class DataStack extends Stack {
  readonly table: Table;
  readonly bucket: Bucket;
  readonly tokenHashSecret: Secret;
  /** The files bucket as the other stacks reference it. */
  readonly sharedBucket: SharedBucket;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);

    this.table = new Table(this, 'Table', {
      partitionKey: { name: TABLE_KEYS.partition, type: AttributeType.STRING },
      sortKey: { name: TABLE_KEYS.sort, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: TABLE_KEYS.ttl,
      // The transactional outbox: a job record's committed write is what queues its job (workers stack, Dispatch).
      stream: StreamViewType[TABLE_STREAM],
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      encryption: TableEncryption.AWS_MANAGED,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const gsi of GSIS) {
      this.table.addGlobalSecondaryIndex({
        indexName: gsi.name,
        partitionKey: { name: gsi.partition, type: AttributeType.STRING },
        sortKey: { name: gsi.sort, type: AttributeType.STRING },
      });
    }

    // Server access logs can only be delivered to an SSE-S3 bucket, not a KMS-encrypted one.
    const accessLogs = new Bucket(this, 'AccessLogBucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(ACCESS_LOG_RETENTION_DAYS) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.bucket = new Bucket(this, 'FilesBucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      versioned: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: accessLogs,
      serverAccessLogsPrefix: 'files/',
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [
        {
          id: 'abandoned-upload-sessions',
          prefix: AREAS.sessions,
          expiration: Duration.days(ABANDONED_UPLOAD_DAYS),
          noncurrentVersionExpiration: Duration.days(1),
        },
        {
          id: 'quarantined-objects',
          prefix: AREAS.quarantine,
          expiration: Duration.days(QUARANTINE_RETENTION_DAYS),
          noncurrentVersionExpiration: Duration.days(1),
        },
        {
          id: 'noncurrent-versions-and-incomplete-uploads',
          abortIncompleteMultipartUploadAfter: Duration.days(1),
          noncurrentVersionExpiration: Duration.days(NONCURRENT_RETENTION_DAYS),
          expiredObjectDeleteMarker: true,
        },
      ],
    });

    const arnExportName = `${this.stackName}-FilesBucketArn`;
    this.exportValue(this.bucket.bucketArn, { name: arnExportName });
    this.sharedBucket = { stack: this, bucketName: this.bucket.bucketName, arnExportName };

    this.tokenHashSecret = new Secret(this, 'TokenHashSecret', {
      description: 'HMAC-SHA-256 key of the API token hashes (DESIGN.md section 4, step 3).',
      // Alphanumeric only, so that operators can pass it through shells and env files unquoted.
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.tokenHashSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Every stored token hash is keyed with this secret: rotating it invalidates all issued credentials at once. Rotation is a deliberate operator procedure (rotate, then reissue tokens), not a schedule.',
    });

    const outputs: Record<(typeof DATA_STACK_SETTINGS)[number], [value: string, description: string]> = {
      TABLE_NAME: [this.table.tableName, 'The single DynamoDB table'],
      BUCKET_NAME: [this.bucket.bucketName, 'The files bucket'],
      TOKEN_HASH_SECRET_ARN: [this.tokenHashSecret.secretArn, 'The Secrets Manager secret keying the token hashes'],
    };
    for (const [setting, [value, description]] of Object.entries(outputs)) settingOutput(this, setting, value, description);
  }
}
