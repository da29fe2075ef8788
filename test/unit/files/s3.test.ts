import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordedCommands, runAsFunction, startRecording } from '../../../lib/command-recording.js';
import { resetSettings } from '../../../lib/config.js';
import { bucketName, ensureBucket, presignedPost, resetS3Client, s3 } from '../../../lib/files/s3.js';

const client = mockClient(S3Client);
const ENDPOINT = 'http://127.0.0.1:4569';

beforeEach(() => {
  client.reset();
  delete process.env.S3_ENDPOINT;
  process.env.BUCKET_NAME = 'unit-files';
  process.env.AWS_REGION = 'ap-southeast-2';
  resetSettings();
  resetS3Client();
});
afterEach(() => {
  resetSettings();
  resetS3Client();
});

function withEndpoint(): void {
  process.env.S3_ENDPOINT = ENDPOINT;
  resetSettings();
}

describe('s3', () => {
  it('answers one client for every call until it is reset', async () => {
    const [first, second] = await Promise.all([s3(), s3()]);
    expect(second.client).toBe(first.client);
  });

  it('answers a new client once reset, for settings read again', async () => {
    const before = await s3();
    resetS3Client();
    expect((await s3()).client).not.toBe(before.client);
  });

  it('computes and validates checksums only where S3 requires them, which s3rver needs of streamed objects', async () => {
    const { config } = (await s3()).client;
    expect(await Promise.all([config.requestChecksumCalculation(), config.responseChecksumValidation()])).toEqual(['WHEN_REQUIRED', 'WHEN_REQUIRED']);
  });

  it('addresses AWS in the region of the settings, virtual-hosted', async () => {
    const { config } = (await s3()).client;
    expect({ region: await config.region(), pathStyle: config.forcePathStyle, endpoint: config.endpoint }).toEqual({
      region: 'ap-southeast-2',
      pathStyle: false,
      endpoint: undefined,
    });
  });

  it("addresses an emulator's endpoint path-style, with the emulator's credentials", async () => {
    withEndpoint();
    const { config } = (await s3()).client;
    const endpoint = await config.endpoint!();
    expect({
      endpoint: `${endpoint.protocol}//${endpoint.hostname}:${endpoint.port}`,
      pathStyle: config.forcePathStyle,
      credentials: await config.credentials(),
    }).toEqual({ endpoint: ENDPOINT, pathStyle: true, credentials: expect.objectContaining({ accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }) });
  });
});

describe('bucketName', () => {
  it('is the bucket of the settings', () => {
    expect(bucketName()).toBe('unit-files');
  });
});

describe('ensureBucket', () => {
  it('only heads a bucket that exists', async () => {
    client.on(HeadBucketCommand).resolves({});
    await ensureBucket();
    expect(client.calls().map((c) => [c.args[0].constructor.name, c.args[0].input])).toEqual([['HeadBucketCommand', { Bucket: 'unit-files' }]]);
  });

  it('creates the bucket when heading it fails', async () => {
    client.on(HeadBucketCommand).rejects(Object.assign(new Error('Not Found'), { name: 'NotFound' }));
    client.on(CreateBucketCommand).resolves({});
    await ensureBucket();
    expect(client.commandCalls(CreateBucketCommand).map((c) => c.args[0].input)).toEqual([{ Bucket: 'unit-files' }]);
  });
});

describe('presignedPost', () => {
  const policyOf = (fields: Record<string, string>) => JSON.parse(Buffer.from(fields.Policy!, 'base64').toString('utf8')) as { conditions: unknown[] };

  it("signs a POST of the key to the bucket, under the caller's conditions", async () => {
    withEndpoint();
    const post = await presignedPost({ Key: 'uploads/01SESSION', Conditions: [['content-length-range', 1, 10]], Expires: 900 });
    expect(post.url).toBe(`${ENDPOINT}/unit-files`);
    expect(post.fields.key).toBe('uploads/01SESSION');
    expect(policyOf(post.fields).conditions).toEqual(
      expect.arrayContaining([['content-length-range', 1, 10], { bucket: 'unit-files' }, { key: 'uploads/01SESSION' }]),
    );
  });

  it("is recorded as the signer's command on the key's area, since the client sends it later", async () => {
    withEndpoint();
    startRecording();
    await runAsFunction('http/unit-presign', () => presignedPost({ Key: 'uploads/01SESSION', Expires: 900 }));
    expect(recordedCommands()['http/unit-presign']).toEqual({ 's3:PresignedPost': ['uploads/'] });
  });
});
