import type * as S3 from './s3-sdk.js';
import type { PresignedPost, PresignedPostOptions } from '@aws-sdk/s3-presigned-post';
import { addCommandRecording, areaOf, describeS3, recordCommands } from '../command-recording.js';
import { settings } from '../config.js';
import { withoutSdkLogging } from '../sdk-logging.js';

export interface S3Access {
  /** The SDK's S3 commands the functions send. */
  sdk: typeof S3;
  client: S3.S3Client;
}

let loaded: Promise<S3Access> | undefined;

/**
 * The S3 module and client, loaded at the first call: most operations of a function that handles
 * files never reach S3, and the module is among the largest of a bundle, so it is a chunk of its
 * own that only the operations that use it load and evaluate. Checksums only when required:
 * s3rver stores aws-chunked framing into streamed objects otherwise (STACK-NOTES), and path style
 * because s3rver has no virtual hosts.
 */
export function s3(): Promise<S3Access> {
  loaded ??= createClient();
  return loaded;
}

async function createClient(): Promise<S3Access> {
  const sdk = await import('./s3-sdk.js');
  const { S3_ENDPOINT, AWS_REGION } = settings();
  const created = new sdk.S3Client({
    region: AWS_REGION,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...(S3_ENDPOINT ? { endpoint: S3_ENDPOINT, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } } : {}),
  });
  addCommandRecording(created.middlewareStack, describeS3);
  withoutSdkLogging(created.middlewareStack);
  return { sdk, client: created };
}

/** A presigned POST is signed here and sent by the client later: it is recorded as issued by the signer. */
export async function presignedPost(options: Omit<PresignedPostOptions, 'Bucket'>): Promise<PresignedPost> {
  recordCommands([{ command: 's3:PresignedPost', resource: areaOf(options.Key) }]);
  const [{ createPresignedPost }, { client }] = await Promise.all([import('@aws-sdk/s3-presigned-post'), s3()]);
  return createPresignedPost(client, { ...options, Bucket: bucketName() });
}

export function resetS3Client(): void {
  const current = loaded;
  loaded = undefined;
  void current?.then(({ client }) => client.destroy());
}

export function bucketName(): string {
  return settings().BUCKET_NAME;
}

/** Creates the bucket when missing (local runtime and tests; on AWS the data stack owns it). */
export async function ensureBucket(): Promise<void> {
  const { sdk, client } = await s3();
  try {
    await client.send(new sdk.HeadBucketCommand({ Bucket: bucketName() }));
  } catch {
    await client.send(new sdk.CreateBucketCommand({ Bucket: bucketName() }));
  }
}
