import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { decodeTime } from 'ulid';
import { newUlid } from '../../../lib/domain/ids.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resetSettings } from '../../../lib/config.js';
import { resetS3Client } from '../../../lib/files/s3.js';
import { consumeSessionWrite, createSession, EMPTY_FILE_DETAIL, readSession, type SessionScope } from '../../../lib/files/sessions.js';
import { attributeEquals, itemAbsent } from '../../../lib/store/conditions.js';
import { resetDdbClient, tableName } from '../../../lib/store/client.js';
import { keys } from '../../../lib/store/keys.js';
import type { OnConditionFailed } from '../../../lib/store/transact.js';
import { objectBody, s3Error } from '../../support/s3-mock.js';

const ddb = mockClient(DynamoDBDocumentClient);
const s3 = mockClient(S3Client);
const BUCKET = 'unit-sessions';

beforeEach(() => {
  ddb.reset();
  s3.reset();
  process.env.S3_ENDPOINT = 'http://127.0.0.1:4569';
  process.env.BUCKET_NAME = BUCKET;
  resetSettings();
  resetS3Client();
  resetDdbClient();
});
afterEach(() => {
  resetSettings();
  resetS3Client();
});

const now = new Date('2026-11-27T06:00:00.000Z');
const organisationId = newUlid();
const projectId = newUlid();
const userId = newUlid();
const projectScope: SessionScope = { organisationId, projectId };
const create = (scope: SessionScope = projectScope) => createSession({ purpose: 'evidence', maxBytes: 50_000_000, fileName: 'scan.pdf', scope, userId, now });

/** A 422 as the client sees it: its status and field errors. */
const refusal = (code: string, detail: string) => ({ status: 422, errors: [{ pointer: '/upload_session', code, detail }] });
async function refused(run: () => Promise<unknown>) {
  const error = (await run().catch((e: unknown) => e)) as { status: number; extra: { errors: unknown[] } };
  return { status: error.status, errors: error.extra.errors };
}

/** A session record as stored: an open session of a project's evidence file. */
const sessionItem = (id: string, expiresAt: number) => ({
  ...keys.uploadSession(id),
  entity: 'upload-session',
  id,
  purpose: 'evidence',
  organisation_id: organisationId,
  project_id: projectId,
  created_by: userId,
  file_name: 'scan.pdf',
  max_bytes: 50_000_000,
  s3_key: `uploads/${id}`,
  status: 'open',
  expires_at: expiresAt,
});

describe('createSession', () => {
  it('answers a session that expires in 15 minutes, named by a ULID of its creation', async () => {
    const { session } = await create();
    expect({ ...session, upload: undefined }).toEqual({
      id: expect.any(String),
      file_name: 'scan.pdf',
      max_bytes: 50_000_000,
      expires_at: '2026-11-27T06:15:00.000Z',
      upload: undefined,
    });
    expect(decodeTime(session.id)).toBe(now.getTime());
  });

  it("has the client POST to the bucket under the session's key in the uploads area, bounded from 1 byte to the limit", async () => {
    const { session } = await create();
    const policy = JSON.parse(Buffer.from(session.upload.fields.Policy!, 'base64').toString('utf8')) as { expiration: string; conditions: unknown[] };
    expect({ url: session.upload.url, key: session.upload.fields.key, conditions: policy.conditions }).toEqual({
      url: `http://127.0.0.1:4569/${BUCKET}`,
      key: `uploads/${session.id}`,
      conditions: expect.arrayContaining([['content-length-range', 1, 50_000_000], { key: `uploads/${session.id}` }]),
    });
  });

  it("puts an open session record of a project's upload, once, kept a day past its expiry", async () => {
    const { session, writes } = await create();
    const expires = Math.floor(now.getTime() / 1000) + 900;
    expect(writes).toEqual([
      {
        kind: 'put',
        item: { ...sessionItem(session.id, expires), ttl: expires + 86_400 },
        condition: itemAbsent(),
      },
    ]);
  });

  it("records a provider's session under the provider alone", async () => {
    const providerId = newUlid();
    const { writes } = await create({ providerId });
    const item: Record<string, unknown> = writes[0]?.kind === 'put' ? writes[0].item : {};
    expect([item.provider_id, 'organisation_id' in item, 'project_id' in item]).toEqual([providerId, false, false]);
  });
});

describe('readSession', () => {
  const id = newUlid();
  const record = (over: Record<string, unknown> = {}) => ({ ...sessionItem(id, Math.floor(now.getTime() / 1000) + 60), ...over });
  const stored = (over: Record<string, unknown> = {}) => ddb.on(GetCommand).resolves({ Item: record(over) });
  const uploaded = (bytes: Buffer) => s3.on(GetObjectCommand, { Bucket: BUCKET, Key: `uploads/${id}` }).resolves({ Body: objectBody(bytes) });
  const read = (over: Partial<Parameters<typeof readSession>[1]> = {}) => readSession(id, { purpose: 'evidence', scope: projectScope, userId, now, ...over });

  it("answers the session's file, as bytes of no declared type, from a consistent read of the record", async () => {
    stored();
    uploaded(Buffer.from('%PDF-1.7'));
    const { file } = await read();
    expect(file).toEqual({ file_name: 'scan.pdf', declared_type: 'application/octet-stream', bytes: Buffer.from('%PDF-1.7') });
    expect(ddb.commandCalls(GetCommand).map((c) => c.args[0].input)).toEqual([{ TableName: tableName(), Key: keys.uploadSession(id), ConsistentRead: true }]);
  });

  it.each([
    ['a session that does not exist', () => ddb.on(GetCommand).resolves({}), {}],
    ['another purpose', () => stored(), { purpose: 'organisation-logo' }],
    ['another project of the organisation', () => stored(), { scope: { organisationId, projectId: newUlid() } }],
    ["the organisation's own scope", () => stored(), { scope: { organisationId } }],
    ['a provider', () => stored(), { scope: { providerId: newUlid() } }],
    ['another user', () => stored(), { userId: newUlid() }],
  ])('refuses as no such session %s', async (_label, arrange, expected) => {
    arrange();
    expect(await refused(() => read(expected as never))).toEqual(refusal('invalid_upload_session', 'no such upload session for this upload'));
  });

  it('refuses a session whose file became an upload already', async () => {
    stored({ status: 'consumed' });
    expect(await refused(() => read())).toEqual(refusal('invalid_upload_session', 'the upload session has been used'));
  });

  it('refuses a session past its expiry', async () => {
    stored({ expires_at: Math.floor(now.getTime() / 1000) - 1 });
    expect(await refused(() => read())).toEqual(refusal('invalid_upload_session', 'the upload session has expired'));
  });

  it('refuses a session the client posted no file to', async () => {
    stored();
    s3.on(GetObjectCommand).rejects(s3Error('NoSuchKey'));
    expect(await refused(() => read())).toEqual(refusal('invalid_upload_session', 'no file has been uploaded to the session'));
  });

  it('refuses an empty file that an emulator let through', async () => {
    stored();
    uploaded(Buffer.alloc(0));
    expect(await refused(() => read())).toEqual(refusal('empty_file', EMPTY_FILE_DETAIL));
  });
});

describe('consumeSessionWrite', () => {
  it('marks the session consumed while it is still open', () => {
    const id = newUlid();
    expect(consumeSessionWrite(id)).toEqual({
      kind: 'update',
      key: keys.uploadSession(id),
      update: 'SET #s = :c',
      names: { '#s': 'status' },
      values: { ':c': 'consumed' },
      condition: attributeEquals('status', 'open'),
      onConditionFailed: expect.any(Function),
    });
  });

  it('answers a session consumed meanwhile as used', async () => {
    const { onConditionFailed } = consumeSessionWrite(newUlid()) as { onConditionFailed: OnConditionFailed };
    expect(await refused(() => Promise.reject(onConditionFailed(undefined)))).toEqual(refusal('invalid_upload_session', 'the upload session has been used'));
  });
});
