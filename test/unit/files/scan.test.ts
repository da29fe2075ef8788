import { CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { newUlid } from '../../../lib/domain/ids.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resetSettings } from '../../../lib/config.js';
import { resetS3Client } from '../../../lib/files/s3.js';
import { applyVerdict, condemnHash, processScan, sweepStalledScans } from '../../../lib/files/scan.js';
import { sha256 } from '../../../lib/files/storage.js';
import { scanWatchItem, type UploadRecord } from '../../../lib/files/uploads.js';
import { queueUrlVariable } from '../../../lib/queues/queues.js';
import { resetSqsClient } from '../../../lib/queues/sqs.js';
import { resetDdbClient, tableName } from '../../../lib/store/client.js';
import { gsi1, keys } from '../../../lib/store/keys.js';
import { type Item, keyString } from '../../../lib/store/read.js';
import { buildToken, buildUpload, buildUser, storedAccess, storedUpload } from '../../support/factories.js';
import { EICAR, PDF, png } from '../../support/files.js';
import { objectBody, s3Error } from '../../support/s3-mock.js';
import { mockedItems } from '../../support/table-mock.js';

/**
 * The scan pipeline's decisions and the writes each makes, on mocked clients: the table answers
 * reads from the items put in `table`; what the pipeline writes is asserted as the commands it sends.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const s3 = mockClient(S3Client);
const sqs = mockClient(SQSClient);
const BUCKET = 'unit-scan';
const table = mockedItems(ddb);
const store = table.put;

beforeEach(() => {
  for (const client of [ddb, s3, sqs]) client.reset();
  process.env.BUCKET_NAME = BUCKET;
  process.env.MALWARE_SCANNER = 'local';
  process.env[queueUrlVariable('scan')] = 'https://sqs.test/scan';
  resetSettings();
  resetS3Client();
  resetSqsClient();
  resetDdbClient();
  table.answer();
  ddb.on(TransactWriteCommand).resolves({});
  ddb.on(BatchWriteCommand).resolves({});
  s3.on(CopyObjectCommand).resolves({});
  s3.on(DeleteObjectCommand).resolves({});
  sqs.on(SendMessageCommand).resolves({});
});
afterEach(() => {
  resetSettings();
  resetS3Client();
  resetSqsClient();
});

const now = new Date('2026-11-27T06:00:00.000Z');
const projectId = newUlid();
const controlId = newUlid();

/** An evidence file in quarantine, its owner showing it, and its uploader still holding what it needed. */
function quarantined(bytes: Buffer = PDF, over: Partial<UploadRecord> = {}): UploadRecord {
  const id = over.id ?? newUlid();
  const upload = buildUpload({
    id,
    project_id: projectId,
    owner: keys.evidence(projectId, controlId, newUlid()),
    authority: { scope: { kind: 'project', id: projectId }, permissions: ['edit-control-implementation', 'view-controls'] },
    status: 'quarantine',
    s3_key: `quarantine/${id}`,
    sha256: sha256(bytes),
    size: bytes.length,
    detected_type: null,
    checks: { validation: 'pending', malware: 'pending' },
    scanned_at: null,
    ...over,
  });
  store(storedUpload(upload), { ...upload.owner, upload_id: upload.id, file_status: 'quarantine', error_code: null, version: 1 });
  store(
    {
      ...keys.token(upload.token_id),
      ...buildToken({
        id: upload.token_id,
        user_id: upload.uploaded_by,
        type: 'project',
        project_id: projectId,
        abilities: ['edit-control-implementation', 'view-controls'],
      }),
    },
    { ...keys.user(upload.uploaded_by), ...buildUser({ id: upload.uploaded_by }) },
    storedAccess(upload.uploaded_by, { kind: 'project', id: projectId }, ['edit-control-implementation', 'view-controls']),
  );
  s3.on(GetObjectCommand, { Bucket: BUCKET, Key: upload.s3_key }).resolves({ Body: objectBody(bytes) });
  return upload;
}

const transactions = () => ddb.commandCalls(TransactWriteCommand).map((c) => c.args[0].input.TransactItems);
const s3Inputs = <T>(command: new (input: T) => unknown) => s3.commandCalls(command as never).map((c) => c.args[0].input);
/** The status and error code a transaction's first item (the upload's update) sets. */
const settledAs = (items: NonNullable<ReturnType<typeof transactions>[number]>) => {
  const update = items[0]!.Update!;
  const set = Object.fromEntries(
    Object.entries(update.ExpressionAttributeNames!)
      .filter(([p]) => p.startsWith('#set'))
      .map(([p, name]) => [name, update.ExpressionAttributeValues![p.replace('#', ':')]]),
  );
  return { key: update.Key, status: set.status, error_code: set.error_code };
};

describe('processScan: release', () => {
  it('settles a clean file ready in one transaction: the upload, its watch item, and its owner with a new version', async () => {
    const upload = quarantined();
    await processScan(upload.id, now);
    expect(transactions()).toEqual([
      [
        {
          Update: {
            TableName: tableName(),
            Key: keys.upload(upload.id),
            UpdateExpression: 'SET #set0 = :set0, #set1 = :set1, #set2 = :set2, #set3 = :set3, #set4 = :set4, #set5 = :set5',
            ConditionExpression: '#cnd0 = :cnd0',
            ExpressionAttributeNames: {
              '#set0': 's3_key',
              '#set1': 'detected_type',
              '#set2': 'width',
              '#set3': 'height',
              '#set4': 'status',
              '#set5': 'scanned_at',
              '#cnd0': 'status',
            },
            ExpressionAttributeValues: {
              ':set0': `files/${upload.id}`,
              ':set1': 'application/pdf',
              ':set2': null,
              ':set3': null,
              ':set4': 'ready',
              ':set5': now.toISOString(),
              ':cnd0': 'quarantine',
            },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
        { Delete: { TableName: tableName(), Key: keys.uploadScan(upload.id) } },
        {
          Update: {
            TableName: tableName(),
            Key: upload.owner,
            UpdateExpression: 'SET #set0 = :set0, #set1 = :set1, #set2 = :set2, #set3 = :set3, #set4 = :set4, #set5 = :set5 ADD #v :one',
            ConditionExpression: '#cnd0 = :cnd0',
            ExpressionAttributeNames: {
              '#set0': 'file_status',
              '#set1': 'updated_at',
              '#set2': 's3_key',
              '#set3': 'detected_type',
              '#set4': 'width',
              '#set5': 'height',
              '#v': 'version',
              '#cnd0': 'upload_id',
            },
            ExpressionAttributeValues: {
              ':set0': 'ready',
              ':set1': now.toISOString(),
              ':set2': `files/${upload.id}`,
              ':set3': 'application/pdf',
              ':set4': null,
              ':set5': null,
              ':one': 1,
              ':cnd0': upload.id,
            },
          },
        },
      ],
    ]);
  });

  it('copies the quarantined bytes into the files area before it settles, and removes the quarantine copy after', async () => {
    const upload = quarantined();
    await processScan(upload.id, now);
    expect({ copied: s3Inputs(CopyObjectCommand), deleted: s3Inputs(DeleteObjectCommand) }).toEqual({
      copied: [{ Bucket: BUCKET, Key: `files/${upload.id}`, CopySource: `${BUCKET}/quarantine/${upload.id}`, ServerSideEncryption: 'AES256' }],
      deleted: [{ Bucket: BUCKET, Key: `quarantine/${upload.id}` }],
    });
  });

  it("moves the revision of the collection an owner is listed in, so that the collection's ETag changes too", async () => {
    const upload = quarantined();
    const parent = keys.control(projectId, controlId);
    store({ ...table.read(upload.owner)!, revision_key: parent });
    await processScan(upload.id, now);
    expect(transactions()[0]![3]).toEqual({
      Update: {
        TableName: tableName(),
        Key: parent,
        UpdateExpression: 'ADD #r :one',
        ExpressionAttributeNames: { '#r': 'revision' },
        ExpressionAttributeValues: { ':one': 1 },
      },
    });
  });

  it('leaves alone an owner that shows another upload by now', async () => {
    const upload = quarantined();
    store({ ...table.read(upload.owner)!, upload_id: newUlid() });
    await processScan(upload.id, now);
    expect(transactions()[0]).toHaveLength(2);
  });

  it('deletes its released copy when a condemnation settled the upload first', async () => {
    const upload = quarantined();
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(
        new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }] }),
      );
    ddb.on(GetCommand, { Key: keys.upload(upload.id) }).resolves({ Item: { ...storedUpload(upload), status: 'error', error_code: 'malware_detected' } });
    await processScan(upload.id, now);
    expect(s3Inputs(DeleteObjectCommand)).toEqual([{ Bucket: BUCKET, Key: `files/${upload.id}` }]);
  });
});

describe('processScan: nothing to do', () => {
  it('does nothing for an upload deleted since its job was dispatched', async () => {
    await processScan(newUlid(), now);
    expect([...transactions(), ...s3.calls()]).toEqual([]);
  });

  it('does nothing for an upload that settled already (a redelivered message)', async () => {
    const upload = quarantined();
    store({ ...storedUpload(upload), status: 'ready' });
    await processScan(upload.id, now);
    expect([...transactions(), ...s3.calls()]).toEqual([]);
  });
});

describe('processScan: refusals', () => {
  it('ends the scan as authorisation_lost, reading no bytes, once the uploader lost what it needed', async () => {
    const upload = quarantined();
    store(storedAccess(upload.uploaded_by, { kind: 'project', id: projectId }, ['view-controls']));
    await processScan(upload.id, now);
    expect({ settled: settledAs(transactions()[0]!), read: s3Inputs(GetObjectCommand) }).toEqual({
      settled: { key: keys.upload(upload.id), status: 'error', error_code: 'authorisation_lost' },
      read: [],
    });
  });

  it('ends the scan as content_changed when the quarantined bytes are not the bytes hashed', async () => {
    const upload = quarantined(PDF, { sha256: sha256(Buffer.from('other')) });
    await processScan(upload.id, now);
    expect(settledAs(transactions()[0]!)).toMatchObject({ status: 'error', error_code: 'content_changed' });
  });

  it('ends the scan as scan_failed when the quarantined bytes are gone', async () => {
    const upload = quarantined();
    s3.on(GetObjectCommand).rejects(s3Error('NoSuchKey'));
    await processScan(upload.id, now);
    expect(settledAs(transactions()[0]!)).toMatchObject({ status: 'error', error_code: 'scan_failed' });
  });

  it("ends the scan with the inspection's code for bytes the profile refuses", async () => {
    const upload = quarantined(png(4, 4), { file_name: 'diagram.png', declared_type: 'image/png', profile: 'organisation-logo' });
    await processScan(upload.id, now);
    expect(settledAs(transactions()[0]!)).toMatchObject({ status: 'error', error_code: 'image_dimensions_out_of_range' });
  });

  it('refuses and mirrors the refusal into the owner', async () => {
    const upload = quarantined(PDF, { sha256: sha256(Buffer.from('other')) });
    await processScan(upload.id, now);
    expect(transactions()[0]![2]!.Update!.ExpressionAttributeValues).toMatchObject({ ':set0': 'error', ':set2': 'content_changed' });
  });
});

describe('processScan: malware', () => {
  it('condemns the EICAR test file with the local scanner, deleting every copy of its bytes', async () => {
    const upload = quarantined(EICAR);
    ddb.on(QueryCommand).resolves({ Items: [storedUpload(upload)] });
    await processScan(upload.id, now);
    expect({
      settled: settledAs(transactions()[0]!),
      deleted: s3Inputs(DeleteObjectCommand)
        .map((i) => i.Key)
        .sort(),
    }).toEqual({
      settled: { key: keys.upload(upload.id), status: 'error', error_code: 'malware_detected' },
      deleted: [`files/${upload.id}`, `quarantine/${upload.id}`],
    });
  });

  it('applies a malicious verdict that arrived before the upload record, reading no bytes', async () => {
    const upload = quarantined();
    store({ ...keys.uploadVerdict(upload.id), verdict: 'malicious', s3_key: upload.s3_key });
    ddb.on(QueryCommand).resolves({ Items: [storedUpload(upload)] });
    await processScan(upload.id, now);
    expect({ settled: settledAs(transactions()[0]!), read: s3Inputs(GetObjectCommand) }).toEqual({
      settled: { key: keys.upload(upload.id), status: 'error', error_code: 'malware_detected' },
      read: [],
    });
  });

  it('ignores an early verdict about another object than the upload names', async () => {
    const upload = quarantined();
    store({ ...keys.uploadVerdict(upload.id), verdict: 'malicious', s3_key: `uploads/${upload.id}` });
    await processScan(upload.id, now);
    expect(settledAs(transactions()[0]!)).toMatchObject({ status: 'ready' });
  });
});

describe('processScan with GuardDuty', () => {
  beforeEach(() => {
    process.env.MALWARE_SCANNER = 'guardduty';
    resetSettings();
  });

  it('records the validation with the inspection it passed, and waits for the verdict', async () => {
    const upload = quarantined();
    ddb.on(UpdateCommand).resolves({ Attributes: { ...storedUpload(upload), checks: { validation: 'passed', malware: 'pending' } } });
    await processScan(upload.id, now);
    expect({ updates: ddb.commandCalls(UpdateCommand).map((c) => c.args[0].input), settled: transactions() }).toEqual({
      updates: [
        {
          TableName: tableName(),
          Key: keys.upload(upload.id),
          UpdateExpression: 'SET #c.#k = :v, #i = :i',
          ConditionExpression: '#cnd0 = :cnd0',
          ExpressionAttributeNames: { '#c': 'checks', '#k': 'validation', '#i': 'pending_inspection', '#cnd0': 'status' },
          ExpressionAttributeValues: { ':v': 'passed', ':i': { detectedType: 'application/pdf' }, ':cnd0': 'quarantine' },
          ReturnValues: 'ALL_NEW',
        },
      ],
      settled: [],
    });
  });

  it('releases the file when the validation completes a clean verdict', async () => {
    const upload = quarantined();
    ddb.on(UpdateCommand).resolves({
      Attributes: { ...storedUpload(upload), checks: { validation: 'passed', malware: 'clean' }, pending_inspection: { detectedType: 'application/pdf' } },
    });
    await processScan(upload.id, now);
    expect(settledAs(transactions()[0]!)).toMatchObject({ status: 'ready' });
  });
});

describe('applyVerdict', () => {
  it('keeps a verdict that beats its upload record for a week, written only while the record is absent', async () => {
    const id = newUlid();
    await applyVerdict(`quarantine/${id}`, 'clean', now);
    expect(transactions()).toEqual([
      [
        {
          ConditionCheck: {
            TableName: tableName(),
            Key: keys.upload(id),
            ConditionExpression: 'attribute_not_exists(#cnd0)',
            ExpressionAttributeNames: { '#cnd0': 'PK' },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
        {
          Put: {
            TableName: tableName(),
            Item: {
              ...keys.uploadVerdict(id),
              entity: 'upload-verdict',
              verdict: 'clean',
              s3_key: `quarantine/${id}`,
              received_at: now.toISOString(),
              ttl: Math.floor(now.getTime() / 1000) + 7 * 86_400,
            },
          },
        },
      ],
    ]);
  });

  it('ignores a verdict on an object its client can still write (a session object)', async () => {
    const upload = quarantined();
    await applyVerdict(`uploads/${upload.id}`, 'malicious', now);
    expect([...transactions(), ...ddb.commandCalls(UpdateCommand)]).toEqual([]);
  });

  it('ends the scan as scan_failed when GuardDuty could not scan the object', async () => {
    const upload = quarantined();
    await applyVerdict(upload.s3_key, 'failed', now);
    expect(settledAs(transactions()[0]!)).toMatchObject({ status: 'error', error_code: 'scan_failed' });
  });

  it('records a clean verdict as the malware check passed, leaving the release to the validation', async () => {
    const upload = quarantined();
    ddb.on(UpdateCommand).resolves({ Attributes: { ...storedUpload(upload), checks: { validation: 'pending', malware: 'clean' } } });
    await applyVerdict(upload.s3_key, 'clean', now);
    expect(ddb.commandCalls(UpdateCommand).map((c) => c.args[0].input.ExpressionAttributeNames)).toEqual([
      { '#c': 'checks', '#k': 'malware', '#cnd0': 'status' },
    ]);
  });
});

describe('condemnHash', () => {
  it('turns a file link mirroring a condemned upload to error too, and goes on past a link deleted meanwhile', async () => {
    const upload = quarantined();
    const gone = keys.evidence(projectId, newUlid(), newUlid());
    const link = keys.evidence(projectId, newUlid(), newUlid());
    store({ ...gone, upload_id: upload.id, file_status: 'ready' }, { ...link, upload_id: upload.id, file_status: 'ready' });
    const mirrored = { ...upload, mirrors: new Set([keyString(gone), keyString(link)]) };
    ddb.on(QueryCommand).resolves({ Items: [storedUpload(mirrored)] });
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: [{ Code: 'ConditionalCheckFailed' }] }))
      .resolves({});
    await condemnHash(upload.sha256, now);
    expect(transactions().map((items) => items!.map((i) => i.Update!.Key))).toEqual([[gone], [link], [keys.upload(upload.id), upload.owner]]);
  });

  it('mirrors again but writes no upload already condemned: a condemnation that stopped half way is done again', async () => {
    const upload = quarantined(PDF, { status: 'error', error_code: 'malware_detected' });
    const link = keys.evidence(projectId, newUlid(), newUlid());
    store({ ...link, upload_id: upload.id, file_status: 'ready' });
    ddb.on(QueryCommand).resolves({ Items: [storedUpload({ ...upload, mirrors: new Set([keyString(link)]) })] });
    await condemnHash(upload.sha256, now);
    expect(transactions().map((items) => items!.map((i) => i.Update!.Key))).toEqual([[link]]);
  });
});

describe('sweepStalledScans', () => {
  const watch = (upload: UploadRecord, over: Record<string, unknown> = {}) => ({ ...scanWatchItem(upload), ...over });
  const watching = (...items: Item[]) => ddb.on(QueryCommand).resolves({ Items: items });

  it('asks the index for the watches older than a lease', async () => {
    watching();
    await sweepStalledScans(now);
    expect(ddb.commandCalls(QueryCommand).map((c) => c.args[0].input)).toEqual([
      {
        TableName: tableName(),
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK < :cutoff',
        ExpressionAttributeValues: { ':pk': gsi1.pendingScans, ':cutoff': '2026-11-27T05:58:00.000Z' },
        ExclusiveStartKey: undefined,
      },
    ]);
  });

  it('queues a stalled scan again, moving its watch to now while no other sweep moved it', async () => {
    const upload = quarantined();
    watching(watch(upload));
    ddb.on(UpdateCommand).resolves({});
    expect(await sweepStalledScans(now)).toEqual({ requeued: 1, ended: 0 });
    expect({
      moved: ddb.commandCalls(UpdateCommand).map((c) => c.args[0].input),
      sent: sqs.commandCalls(SendMessageCommand).map((c) => c.args[0].input),
    }).toEqual({
      moved: [
        {
          TableName: tableName(),
          Key: keys.uploadScan(upload.id),
          UpdateExpression: 'SET #set0 = :set0, #set1 = :set1, #set2 = :set2',
          ConditionExpression: '#cnd0 = :cnd0',
          ExpressionAttributeNames: { '#set0': 'GSI1PK', '#set1': 'GSI1SK', '#set2': 'requeues', '#cnd0': 'GSI1SK' },
          ExpressionAttributeValues: {
            ':set0': gsi1.pendingScans,
            ':set1': `${now.toISOString()}#${upload.id}`,
            ':set2': 1,
            ':cnd0': scanWatchItem(upload).GSI1SK,
          },
        },
      ],
      sent: [{ QueueUrl: 'https://sqs.test/scan', MessageBody: JSON.stringify({ upload_id: upload.id }) }],
    });
  });

  it('queues nothing for a validated file that waits for its verdict, but counts the wait', async () => {
    const upload = quarantined(PDF, { checks: { validation: 'passed', malware: 'pending' } });
    watching(watch(upload));
    ddb.on(UpdateCommand).resolves({});
    expect(await sweepStalledScans(now)).toEqual({ requeued: 1, ended: 0 });
    expect(sqs.commandCalls(SendMessageCommand)).toEqual([]);
  });

  it('ends a scan queued again as often as allowed as scan_failed', async () => {
    const upload = quarantined();
    watching(watch(upload, { requeues: 3 }));
    expect(await sweepStalledScans(now)).toEqual({ requeued: 0, ended: 1 });
    expect(settledAs(transactions()[0]!)).toMatchObject({ status: 'error', error_code: 'scan_failed' });
  });

  it('removes the watch of an upload settled another way', async () => {
    const upload = quarantined(PDF, { status: 'error', error_code: 'cancelled' });
    watching(watch(upload));
    expect(await sweepStalledScans(now)).toEqual({ requeued: 0, ended: 0 });
    expect(ddb.commandCalls(BatchWriteCommand).map((c) => c.args[0].input)).toEqual([
      { RequestItems: { [tableName()]: [{ DeleteRequest: { Key: keys.uploadScan(upload.id) } }] } },
    ]);
  });

  it('goes on past a watch it could not recover', async () => {
    const failing = quarantined();
    const next = quarantined();
    watching(watch(failing), watch(next));
    ddb.on(UpdateCommand).rejectsOnce(new Error('throttled')).resolves({});
    expect(await sweepStalledScans(now)).toEqual({ requeued: 1, ended: 0 });
  });
});
