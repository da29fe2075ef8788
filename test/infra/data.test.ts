import { Match } from 'aws-cdk-lib/assertions';
import type { CfnBucket } from 'aws-cdk-lib/aws-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { AREAS } from '../../lib/files/storage.js';
import { GSIS, TABLE_KEYS } from '../../lib/store/keys.js';
import { resourcesOf, synthesize, type Synthesized } from './fixture.js';

describe('DataStack', () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synthesize();
  }, 60_000);

  it('has one on-demand table with PITR, deletion protection, TTL and encryption', () => {
    s.dataTemplate.resourceCountIs('AWS::DynamoDB::Table', 1);
    s.dataTemplate.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        BillingMode: 'PAY_PER_REQUEST',
        DeletionProtectionEnabled: true,
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        TimeToLiveSpecification: { AttributeName: TABLE_KEYS.ttl, Enabled: true },
        SSESpecification: { SSEEnabled: true },
        KeySchema: [
          { AttributeName: TABLE_KEYS.partition, KeyType: 'HASH' },
          { AttributeName: TABLE_KEYS.sort, KeyType: 'RANGE' },
        ],
      }),
    });
  });

  it('streams new and old images of every write, which the workers stack dispatches jobs from', () => {
    s.dataTemplate.hasResourceProperties('AWS::DynamoDB::Table', { StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' } });
  });

  it('has exactly the registry GSIs', () => {
    const table = Object.values(resourcesOf(s.dataTemplate, 'AWS::DynamoDB::Table'))[0]!;
    const indexes = table.Properties.GlobalSecondaryIndexes as { IndexName: string; KeySchema: { AttributeName: string; KeyType: string }[] }[];
    const actual = new Set(indexes.map((i) => `${i.IndexName}:${i.KeySchema.map((k) => `${k.AttributeName}/${k.KeyType}`).join(',')}`));
    expect(actual).toEqual(new Set(GSIS.map((g) => `${g.name}:${g.partition}/HASH,${g.sort}/RANGE`)));
  });

  it('keeps files in a private, encrypted, versioned, logged bucket with lifecycle rules', () => {
    s.dataTemplate.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: Match.anyValue() } }] },
      VersioningConfiguration: { Status: 'Enabled' },
      LoggingConfiguration: Match.objectLike({ DestinationBucketName: Match.anyValue() }),
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          Match.objectLike({ Prefix: AREAS.sessions, Status: 'Enabled', ExpirationInDays: Match.anyValue() }),
          Match.objectLike({ Prefix: AREAS.quarantine, Status: 'Enabled', ExpirationInDays: Match.anyValue() }),
          Match.objectLike({ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } }),
        ]),
      },
    });
  });

  it('never expires released files: only the upload areas have an expiration rule', () => {
    const bucket = resourcesOf(s.dataTemplate, 'AWS::S3::Bucket')[s.data.getLogicalId(s.data.bucket.node.defaultChild as CfnBucket)]!;
    const rules = (bucket.Properties.LifecycleConfiguration as { Rules: { Prefix?: string; ExpirationInDays?: number }[] }).Rules;
    const expiring = rules.filter((r) => r.ExpirationInDays !== undefined);
    expect(expiring.map((r) => r.Prefix).sort()).toEqual([AREAS.quarantine, AREAS.sessions].sort());
    for (const rule of expiring) expect(rule.ExpirationInDays).toBeLessThanOrEqual(30);
  });

  it('exports the files bucket ARN under a fixed name for the stacks that grant on its areas', () => {
    s.dataTemplate.hasOutput('*', {
      Export: { Name: s.data.sharedBucket.arnExportName },
      Value: { 'Fn::GetAtt': [s.data.getLogicalId(s.data.bucket.node.defaultChild as CfnBucket), 'Arn'] },
    });
  });

  it('denies every request to every bucket that is not over TLS', () => {
    const buckets = Object.keys(resourcesOf(s.dataTemplate, 'AWS::S3::Bucket'));
    const policies = Object.values(resourcesOf(s.dataTemplate, 'AWS::S3::BucketPolicy')).map((p) => p.Properties);
    expect(buckets.length).toBeGreaterThan(0);
    for (const bucket of buckets) {
      const policy = policies.find((p) => JSON.stringify(p.Bucket) === JSON.stringify({ Ref: bucket }));
      expect(policy?.PolicyDocument).toMatchObject({
        Statement: expect.arrayContaining([
          expect.objectContaining({ Effect: 'Deny', Principal: { AWS: '*' }, Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      });
    }
  });

  it('generates the token-hash secret of at least 48 characters and keeps it', () => {
    s.dataTemplate.hasResource('AWS::SecretsManager::Secret', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({ GenerateSecretString: Match.objectLike({ PasswordLength: Match.anyValue() }) }),
    });
    const secret = Object.values(resourcesOf(s.dataTemplate, 'AWS::SecretsManager::Secret'))[0]!;
    expect((secret.Properties.GenerateSecretString as { PasswordLength: number }).PasswordLength).toBeGreaterThanOrEqual(48);
  });
});
