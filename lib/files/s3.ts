import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost, type PresignedPost, type PresignedPostOptions } from '@aws-sdk/s3-presigned-post';
import { addCommandRecording, areaOf, describeS3, recordCommands } from '../command-recording.js';
import { settings } from '../config.js';

let client: S3Client | undefined;

/**
 * The S3 client. Checksums only when required: s3rver stores aws-chunked framing into streamed
 * objects otherwise (STACK-NOTES), and path style because s3rver has no virtual hosts.
 */
export function s3(): S3Client {
  client ??= createClient();
  return client;
}

function createClient(): S3Client {
  const { S3_ENDPOINT, AWS_REGION } = settings();
  const created = new S3Client({
    region: AWS_REGION,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...(S3_ENDPOINT ? { endpoint: S3_ENDPOINT, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } } : {}),
  });
  addCommandRecording(created.middlewareStack, describeS3);
  return created;
}

/** A presigned POST is signed here and sent by the client later: it is recorded as issued by the signer. */
export function presignedPost(options: Omit<PresignedPostOptions, 'Bucket'>): Promise<PresignedPost> {
  recordCommands([{ command: 's3:PresignedPost', resource: areaOf(options.Key) }]);
  return createPresignedPost(s3(), { ...options, Bucket: bucketName() });
}

export function resetS3Client(): void {
  client?.destroy();
  client = undefined;
}

export function bucketName(): string {
  return settings().BUCKET_NAME;
}

/** Creates the bucket when missing (local runtime and tests; on AWS the data stack owns it). */
export async function ensureBucket(): Promise<void> {
  try {
    await s3().send(new HeadBucketCommand({ Bucket: bucketName() }));
  } catch {
    await s3().send(new CreateBucketCommand({ Bucket: bucketName() }));
  }
}
