import { text } from 'node:stream/consumers';
import { CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resetSettings } from '../../../lib/config.js';
import { resetS3Client } from '../../../lib/files/s3.js';
import { copyObject, copyObjectIfPresent, deleteObject, getObject, putObject, sha256, streamObject } from '../../../lib/files/storage.js';
import { objectBody, s3Error } from '../../support/s3-mock.js';

const client = mockClient(S3Client);
const BUCKET = 'unit-storage';
const inputs = <T>(command: new (input: T) => unknown) => client.commandCalls(command as never).map((c) => c.args[0].input);

beforeEach(() => {
  client.reset();
  process.env.BUCKET_NAME = BUCKET;
  resetSettings();
  resetS3Client();
});
afterEach(() => {
  resetSettings();
  resetS3Client();
});

describe('sha256', () => {
  it('is the hex SHA-256 of the bytes', () => {
    expect(sha256(Buffer.from('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('putObject', () => {
  it('puts the bytes under the key, encrypted at rest with S3-managed keys', async () => {
    client.on(PutObjectCommand).resolves({});
    const bytes = Buffer.from('%PDF-1.7');
    await putObject('quarantine/01UPLOAD', bytes, 'application/octet-stream');
    expect(inputs(PutObjectCommand)).toEqual([
      { Bucket: BUCKET, Key: 'quarantine/01UPLOAD', Body: bytes, ContentType: 'application/octet-stream', ServerSideEncryption: 'AES256' },
    ]);
  });
});

describe('getObject', () => {
  it("answers the object's bytes", async () => {
    client.on(GetObjectCommand, { Bucket: BUCKET, Key: 'files/01UPLOAD' }).resolves({ Body: objectBody(Buffer.from('content')) });
    expect(await getObject('files/01UPLOAD')).toEqual(Buffer.from('content'));
  });
});

describe('streamObject', () => {
  it('answers the body unread, with its length', async () => {
    client.on(GetObjectCommand, { Bucket: BUCKET, Key: 'files/01UPLOAD' }).resolves({ Body: objectBody(Buffer.from('streamed')), ContentLength: 8 });
    const object = await streamObject('files/01UPLOAD');
    expect({ length: object!.length, text: await text(object!.stream) }).toEqual({ length: 8, text: 'streamed' });
  });
});

describe.each([
  ['getObject', getObject],
  ['streamObject', streamObject],
])('%s', (_name, read) => {
  it('answers undefined for a key that holds nothing', async () => {
    client.on(GetObjectCommand).rejects(s3Error('NoSuchKey'));
    expect(await read('files/gone')).toBeUndefined();
  });

  it('throws any other failure', async () => {
    client.on(GetObjectCommand).rejects(s3Error('AccessDenied'));
    await expect(read('files/01UPLOAD')).rejects.toMatchObject({ name: 'AccessDenied' });
  });
});

describe('copyObject', () => {
  it('copies within the bucket, encrypting the copy', async () => {
    client.on(CopyObjectCommand).resolves({});
    await copyObject('uploads/01SESSION', 'quarantine/01UPLOAD');
    expect(inputs(CopyObjectCommand)).toEqual([
      { Bucket: BUCKET, Key: 'quarantine/01UPLOAD', CopySource: `${BUCKET}/uploads/01SESSION`, ServerSideEncryption: 'AES256' },
    ]);
  });
});

describe('copyObjectIfPresent', () => {
  it('answers true once copied', async () => {
    client.on(CopyObjectCommand).resolves({});
    expect(await copyObjectIfPresent('quarantine/01UPLOAD', 'files/01UPLOAD')).toBe(true);
  });

  it('answers false when the source is gone', async () => {
    client.on(CopyObjectCommand).rejects(s3Error('NoSuchKey'));
    expect(await copyObjectIfPresent('quarantine/01UPLOAD', 'files/01UPLOAD')).toBe(false);
  });

  it('throws any other failure', async () => {
    client.on(CopyObjectCommand).rejects(s3Error('AccessDenied'));
    await expect(copyObjectIfPresent('quarantine/01UPLOAD', 'files/01UPLOAD')).rejects.toMatchObject({ name: 'AccessDenied' });
  });
});

describe('deleteObject', () => {
  it('deletes the key from the bucket', async () => {
    client.on(DeleteObjectCommand).resolves({});
    await deleteObject('quarantine/01UPLOAD');
    expect(inputs(DeleteObjectCommand)).toEqual([{ Bucket: BUCKET, Key: 'quarantine/01UPLOAD' }]);
  });
});
