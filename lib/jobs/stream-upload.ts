import { createHash } from 'node:crypto';
import { Transform, type Writable } from 'node:stream';
import { Upload } from '@aws-sdk/lib-storage';
import { bucketName, s3 } from '../files/s3.js';

// Apart from lib/files/storage.ts: only the worker that writes documents streams into S3, and the
// request functions that import storage.ts would otherwise bundle @aws-sdk/lib-storage for nothing.

/** S3's smallest part: memory holds one part (and the renderer's own state), whatever the document's size. */
const PART_BYTES = 5 * 1024 * 1024;

/**
 * Streams what `write` produces into a new object (multipart above one part), hashing it on the
 * way, so that a large document is never held whole. An upload that fails is aborted.
 */
export async function streamToObject(key: string, contentType: string, write: (out: Writable) => Promise<void>): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  const body = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  const upload = new Upload({
    client: (await s3()).client,
    params: { Bucket: bucketName(), Key: key, Body: body, ContentType: contentType, ServerSideEncryption: 'AES256' },
    partSize: PART_BYTES,
    queueSize: 1,
  });
  // A failed upload stops the writer (its writes error) rather than leaving it waiting on backpressure.
  const uploaded = upload.done().catch((error: unknown) => {
    body.destroy(error as Error);
    throw error;
  });
  try {
    await Promise.all([write(body), uploaded]);
  } catch (error) {
    body.destroy();
    await upload.abort().catch(() => undefined);
    await uploaded.catch(() => undefined);
    throw error;
  }
  return { size, sha256: hash.digest('hex') };
}
