import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
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
