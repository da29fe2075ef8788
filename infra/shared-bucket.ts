import { Fn, Stack } from 'aws-cdk-lib';
import { Bucket, type IBucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';

/**
 * The files bucket as other stacks see it. Its ARN travels through an export with a fixed name,
 * not a generated one, so that a grant on one of its areas reads `<export>/quarantine/*` in every
 * synth phase: cdk-nag names wildcard findings after that text, and an acknowledgement must match
 * it both in the unit tests (references unresolved) and in `cdk synth` (references resolved).
 */
export interface SharedBucket {
  stack: Stack;
  bucketName: string;
  arnExportName: string;
}

/** The bucket inside a consuming stack, which then deploys after the stack that owns it. */
export function importSharedBucket(scope: Construct, id: string, shared: SharedBucket): IBucket {
  Stack.of(scope).addStackDependency(shared.stack);
  return Bucket.fromBucketAttributes(scope, id, { bucketArn: Fn.importValue(shared.arnExportName), bucketName: shared.bucketName });
}

/** How cdk-nag prints the ARN of an imported bucket inside a finding id. */
export function nagBucketArn(bucket: IBucket): string {
  const resolved: unknown = Stack.of(bucket).resolve(bucket.bucketArn);
  const exportName = (resolved as { 'Fn::ImportValue'?: unknown } | undefined)?.['Fn::ImportValue'];
  if (typeof exportName !== 'string') throw new Error('bucket grants expect a bucket imported with importSharedBucket');
  return exportName;
}
