/**
 * What the functions use of the S3 SDK, in one module that lib/files/s3.ts imports at the first
 * call: a bundle keeps it as a chunk of its own, and imported this way rather than as the SDK's
 * whole namespace, the chunk keeps only these commands.
 */
export {
  CopyObjectCommand,
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
