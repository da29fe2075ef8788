import { createHash } from 'node:crypto';
import { Transform, type Readable, type Writable } from 'node:stream';
import { bucketName, s3 } from './s3.js';

/**
 * S3 areas. Keys are opaque (`<area>/<ULID>`), never user file names. Uploads wait in quarantine
 * (inline) or uploads (sessions) until the scan releases them into files; lifecycle rules expire
 * what is never released.
 */
export const AREAS = { quarantine: 'quarantine/', sessions: 'uploads/', released: 'files/', documents: 'documents/' } as const;

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

export async function putObject(key: string, bytes: Buffer, contentType: string): Promise<void> {
  const { sdk, client } = await s3();
  await client.send(new sdk.PutObjectCommand({ Bucket: bucketName(), Key: key, Body: bytes, ContentType: contentType, ServerSideEncryption: 'AES256' }));
}

export async function getObject(key: string): Promise<Buffer | undefined> {
  try {
    const { sdk, client } = await s3();
    const out = await client.send(new sdk.GetObjectCommand({ Bucket: bucketName(), Key: key }));
    return Buffer.from(await out.Body!.transformToByteArray());
  } catch (error) {
    if ((error as { name?: string }).name === 'NoSuchKey') return undefined;
    throw error;
  }
}

/**
 * The object as a stream, not yet read: the caller pipes it to the client, so a download never
 * holds the file in memory. The caller must consume or destroy it (the connection stays open until then).
 */
export async function streamObject(key: string): Promise<{ stream: Readable; length: number } | undefined> {
  try {
    const { sdk, client } = await s3();
    const out = await client.send(new sdk.GetObjectCommand({ Bucket: bucketName(), Key: key }));
    return { stream: out.Body as Readable, length: Number(out.ContentLength) };
  } catch (error) {
    if ((error as { name?: string }).name === 'NoSuchKey') return undefined;
    throw error;
  }
}

export async function copyObject(from: string, to: string): Promise<void> {
  const { sdk, client } = await s3();
  await client.send(new sdk.CopyObjectCommand({ Bucket: bucketName(), Key: to, CopySource: `${bucketName()}/${from}`, ServerSideEncryption: 'AES256' }));
}

/** Copies an object that another worker may have removed since it was read: false when the source is gone. */
export async function copyObjectIfPresent(from: string, to: string): Promise<boolean> {
  try {
    await copyObject(from, to);
    return true;
  } catch (error) {
    if ((error as { name?: string }).name === 'NoSuchKey') return false;
    throw error;
  }
}

export async function deleteObject(key: string): Promise<void> {
  const { sdk, client } = await s3();
  await client.send(new sdk.DeleteObjectCommand({ Bucket: bucketName(), Key: key }));
}

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
  const [{ Upload }, { client }] = await Promise.all([import('@aws-sdk/lib-storage'), s3()]);
  const upload = new Upload({
    client,
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
