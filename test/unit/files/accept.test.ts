import { CopyObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { decodeTime } from 'ulid';
import { newUlid } from '../../../lib/domain/ids.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resetSettings } from '../../../lib/config.js';
import { acceptUpload, type AcceptRequest, ownerShows, readyFile } from '../../../lib/files/accept.js';
import { resetS3Client } from '../../../lib/files/s3.js';
import { sha256 } from '../../../lib/files/storage.js';
import { scanWatchItem, uploadPut } from '../../../lib/files/uploads.js';
import { resetDdbClient, tableName } from '../../../lib/store/client.js';
import type { FileOwner } from '../../../lib/store/file-owners.js';
import { keys } from '../../../lib/store/keys.js';
import { buildUpload, storedUpload } from '../../support/factories.js';
import { PDF, png } from '../../support/files.js';
import { objectBody, s3Error } from '../../support/s3-mock.js';

const ddb = mockClient(DynamoDBDocumentClient);
const s3 = mockClient(S3Client);
const BUCKET = 'unit-accept';
const calls = (client: typeof s3 | typeof ddb) => client.calls().map((c) => c.args[0].constructor.name);

beforeEach(() => {
  ddb.reset();
  s3.reset();
  process.env.BUCKET_NAME = BUCKET;
  resetSettings();
  resetS3Client();
  resetDdbClient();
  ddb.on(QueryCommand).resolves({ Items: [] });
  ddb.on(PutCommand).resolves({});
  s3.on(PutObjectCommand).resolves({});
  s3.on(CopyObjectCommand).resolves({});
});
afterEach(() => {
  resetSettings();
  resetS3Client();
});

const now = new Date('2026-11-27T06:00:00.000Z');
const projectId = newUlid();
const organisationId = newUlid();

function request(over: Partial<AcceptRequest> = {}): AcceptRequest {
  return {
    profile: 'evidence',
    owner: keys.evidence(projectId, newUlid(), newUlid()),
    organisationId,
    projectId,
    userId: newUlid(),
    tokenId: newUlid(),
    authority: { scope: { kind: 'project', id: projectId }, permissions: ['edit-control-implementation', 'view-controls'] },
    file: { file_name: 'firewall-review.pdf', declared_type: 'application/pdf', bytes: PDF },
    now,
    ...over,
  };
}

/** The problem a refused upload throws, as the client reads it. */
const problemOf = (run: () => Promise<unknown>) =>
  run().then(
    () => undefined,
    (e: { status: number; code: string; extra: { members: unknown } }) => ({ status: e.status, code: e.code, members: e.extra.members }),
  );

describe('acceptUpload: type claims', () => {
  it('refuses bytes sent as another type before storing anything, naming what they are and what was claimed', async () => {
    const refused = await problemOf(() => acceptUpload(request({ file: { file_name: 'diagram.pdf', declared_type: 'application/pdf', bytes: png(4, 4) } })));
    expect(refused).toEqual({
      status: 422,
      code: 'file_type_mismatch',
      members: { detected_type: 'image/png', claimed: { media_type: 'application/pdf', extension: 'pdf' } },
    });
    expect([...calls(s3), ...calls(ddb)]).toEqual([]);
  });

  it('names the extension alone when the media type sent is what the bytes are', async () => {
    const refused = await acceptUpload(request({ file: { file_name: 'diagram.pdf', declared_type: 'image/png', bytes: png(4, 4) } })).catch((e: Error) => e);
    expect((refused as Error).message).toBe('The file is image/png, but its name ends in .pdf; send it as what it is, under a name that says so.');
  });

  it("leaves a session's file to the scan, which checks the copy only this service writes", async () => {
    const session = { id: newUlid(), s3Key: 'uploads/01SESSION' };
    const { upload } = await acceptUpload(
      request({ session, file: { file_name: 'diagram.pdf', declared_type: 'application/octet-stream', bytes: png(4, 4) } }),
    );
    expect(upload.status).toBe('quarantine');
  });
});

describe('acceptUpload: new bytes', () => {
  it('stores the bytes in quarantine under the upload id, as opaque octets', async () => {
    const { upload } = await acceptUpload(request());
    expect(s3.commandCalls(PutObjectCommand).map((c) => c.args[0].input)).toEqual([
      { Bucket: BUCKET, Key: `quarantine/${upload.id}`, Body: PDF, ContentType: 'application/octet-stream', ServerSideEncryption: 'AES256' },
    ]);
  });

  it('names an inline upload by a ULID of the request time', async () => {
    const { upload } = await acceptUpload(request());
    expect(decodeTime(upload.id)).toBe(now.getTime());
  });

  it("answers a quarantined record with both checks pending, and its put for the caller's transaction", async () => {
    const r = request();
    const { upload, writes } = await acceptUpload(r);
    expect(upload).toEqual({
      id: upload.id,
      profile: 'evidence',
      status: 'quarantine',
      error_code: null,
      s3_key: `quarantine/${upload.id}`,
      sha256: sha256(PDF),
      size: PDF.length,
      file_name: 'firewall-review.pdf',
      declared_type: 'application/pdf',
      detected_type: null,
      width: null,
      height: null,
      organisation_id: organisationId,
      project_id: projectId,
      provider_id: null,
      owner: r.owner,
      uploaded_by: r.userId,
      token_id: r.tokenId,
      authority: r.authority,
      checks: { validation: 'pending', malware: 'pending' },
      reused_from: null,
      created_at: now.toISOString(),
      scanned_at: null,
    });
    expect(writes).toEqual([uploadPut(upload)]);
  });

  it("puts the scan's watch item before the caller commits, so that a lost scan is found again", async () => {
    const { upload } = await acceptUpload(request());
    expect(ddb.commandCalls(PutCommand).map((c) => c.args[0].input)).toEqual([{ TableName: tableName(), Item: scanWatchItem(upload) }]);
  });

  it("takes a session's id and copies its object into quarantine inside S3", async () => {
    const session = { id: newUlid(), s3Key: 'uploads/01SESSION' };
    const { upload } = await acceptUpload(request({ session }));
    expect({ id: upload.id, puts: calls(s3).filter((c) => c === 'PutObjectCommand') }).toEqual({ id: session.id, puts: [] });
    expect(s3.commandCalls(CopyObjectCommand).map((c) => c.args[0].input)).toEqual([
      { Bucket: BUCKET, Key: `quarantine/${session.id}`, CopySource: `${BUCKET}/uploads/01SESSION`, ServerSideEncryption: 'AES256' },
    ]);
  });
});

describe('acceptUpload: reuse', () => {
  /** A released upload of the same bytes by the same uploader, as the hash index answers it. */
  function released(r: AcceptRequest, over: Parameters<typeof buildUpload>[0] = {}) {
    const earlier = buildUpload({
      sha256: sha256(r.file.bytes),
      size: r.file.bytes.length,
      file_name: r.file.file_name,
      declared_type: r.file.declared_type,
      organisation_id: organisationId,
      project_id: projectId,
      uploaded_by: r.userId,
      ...over,
    });
    ddb.on(QueryCommand).resolves({ Items: [storedUpload(earlier)] });
    return earlier;
  }

  it('asks the hash index for every upload of the same bytes', async () => {
    await acceptUpload(request());
    expect(ddb.commandCalls(QueryCommand).map((c) => c.args[0].input)).toEqual([
      {
        TableName: tableName(),
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :h',
        ExpressionAttributeValues: { ':h': `SHA256#${sha256(PDF)}` },
        ExclusiveStartKey: undefined,
      },
    ]);
  });

  it('answers a ready record on the released file of an identical upload, storing nothing and queueing no scan', async () => {
    const r = request();
    const earlier = released(r, { width: null, scanned_at: '2026-11-01T00:00:00.000Z' });
    const { upload } = await acceptUpload(r);
    expect(upload).toMatchObject({
      status: 'ready',
      s3_key: earlier.s3_key,
      detected_type: 'application/pdf',
      checks: { validation: 'passed', malware: 'clean' },
      reused_from: earlier.id,
      scanned_at: '2026-11-01T00:00:00.000Z',
    });
    expect([...calls(s3), ...calls(ddb).filter((c) => c !== 'QueryCommand')]).toEqual([]);
  });

  it('reuses nothing of another uploader', async () => {
    const r = request();
    released(r, { uploaded_by: newUlid() });
    expect((await acceptUpload(r)).upload.status).toBe('quarantine');
  });

  it('looks for no reusable file for bytes above the profile limit, which the scan refuses', async () => {
    const big = Buffer.concat([PDF, Buffer.alloc(20 * 1024 * 1024)]);
    await acceptUpload(request({ file: { file_name: 'big.pdf', declared_type: 'application/pdf', bytes: big } }));
    expect(calls(ddb)).toEqual(['PutCommand']);
  });
});

describe('ownerShows', () => {
  it("mirrors the upload's status and file into its owner, as uploaded now by the user", () => {
    const upload = buildUpload({ width: 640, height: 480, detected_type: 'image/png', file_name: 'diagram.png' });
    expect(ownerShows(upload, 'U1', now)).toEqual({
      upload_id: upload.id,
      file_status: 'ready',
      error_code: null,
      file_name: 'diagram.png',
      size: upload.size,
      detected_type: 'image/png',
      width: 640,
      height: 480,
      s3_key: upload.s3_key,
      uploaded_at: now.toISOString(),
      uploaded_by: 'U1',
    });
  });
});

describe('readyFile', () => {
  const owner = (over: Partial<FileOwner> = {}): FileOwner => ({ ...ownerShows(buildUpload(), 'U1', now), version: 1, ...over });

  it('streams a released file as its detected type', async () => {
    const shown = owner();
    s3.on(GetObjectCommand, { Bucket: BUCKET, Key: shown.s3_key }).resolves({ Body: objectBody(PDF), ContentLength: PDF.length });
    const file = await readyFile(shown);
    expect({ contentType: file?.contentType, length: file?.length }).toEqual({ contentType: 'application/pdf', length: PDF.length });
  });

  it.each([
    ['no owner', undefined],
    ['a file in quarantine', { file_status: 'quarantine' }],
    ['a refused file', { file_status: 'error' }],
    ['a released file without a detected type', { detected_type: null }],
  ] as const)('answers nothing for %s, reading no object', async (_label, over) => {
    expect(await readyFile(over && owner(over))).toBeUndefined();
    expect(calls(s3)).toEqual([]);
  });

  it('answers nothing when the released object is gone', async () => {
    s3.on(GetObjectCommand).rejects(s3Error('NoSuchKey'));
    expect(await readyFile(owner())).toBeUndefined();
  });
});
