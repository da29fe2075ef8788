import { beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import type { SQSEvent } from 'aws-lambda';
import { handler } from '../../functions/workers/scan.js';
import { applyVerdict } from '../../lib/files/scan.js';
import { s3 } from '../../lib/files/s3.js';
import { deleteObject, getObject, putObject } from '../../lib/files/storage.js';
import { resetSettings } from '../../lib/config.js';
import { keys } from '../../lib/store/keys.js';
import { getOne } from '../../lib/store/read.js';
import { fixtures } from '../support/api.js';
import { EICAR, png } from '../support/files.js';
import { useTestServices } from '../support/services.js';
import { quarantinedUpload } from '../support/uploads.js';

let op: Awaited<ReturnType<typeof fixtures.operator>>;

beforeAll(async () => {
  await useTestServices();
  op = await fixtures.operator();
});

const quarantined = (bytes: Buffer, fileName?: string, session?: { id: string }) => quarantinedUpload(op, bytes, fileName, session);

const message = (uploadId: string, id = newUlid()): SQSEvent =>
  ({ Records: [{ messageId: id, body: JSON.stringify({ upload_id: uploadId }) }] }) as unknown as SQSEvent;
const statusOf = async (id: string) => (await getOne(keys.upload(id)))!;

describe('scan worker', () => {
  it('releases a clean file: ready, moved out of quarantine, owner mirrored with a new version', async () => {
    const { upload, owner } = await quarantined(png(30, 30));
    expect(await handler(message(upload.id))).toEqual({ batchItemFailures: [] });
    expect(await statusOf(upload.id)).toMatchObject({ status: 'ready', s3_key: `files/${upload.id}`, detected_type: 'image/png', width: 30 });
    expect(await getOne(owner)).toMatchObject({ file_status: 'ready', version: 2, s3_key: `files/${upload.id}` });
  });

  it('releases a file once when two deliveries of its job run at the same time, and its released copy stays', async () => {
    const image = png(31, 31);
    const { upload, owner } = await quarantined(image);
    const results = await Promise.all([handler(message(upload.id)), handler(message(upload.id))]);
    expect(results).toEqual([{ batchItemFailures: [] }, { batchItemFailures: [] }]);
    expect(await statusOf(upload.id)).toMatchObject({ status: 'ready', s3_key: `files/${upload.id}` });
    expect(await getOne(owner)).toMatchObject({ file_status: 'ready', version: 2 });
    expect(await getObject(`files/${upload.id}`)).toEqual(image);
  });

  it('releases a file once when a duplicate delivery copies it after the first has released it and removed its quarantine copy', async () => {
    const image = png(32, 32);
    const { upload, owner } = await quarantined(image);
    // Both deliveries reach their copy; the second copies only once the first has finished.
    let arrived = 0;
    let bothArrived!: () => void;
    const barrier = new Promise<void>((resolve) => (bothArrived = resolve));
    let oneFinished!: () => void;
    const firstDone = new Promise<void>((resolve) => (oneFinished = resolve));
    const hold = 'hold-copies-until-the-first-release-ends';
    (await s3()).client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'CopyObjectCommand') return next(args);
        const n = ++arrived;
        if (n === 2) bothArrived();
        await barrier;
        if (n === 2) await firstDone;
        return next(args);
      },
      { step: 'initialize', name: hold },
    );
    try {
      const results = await Promise.all([handler(message(upload.id)), handler(message(upload.id))].map((run) => run.finally(oneFinished)));
      expect(arrived).toBe(2);
      expect(results).toEqual([{ batchItemFailures: [] }, { batchItemFailures: [] }]);
    } finally {
      (await s3()).client.middlewareStack.remove(hold);
    }
    expect(await statusOf(upload.id)).toMatchObject({ status: 'ready', s3_key: `files/${upload.id}` });
    expect(await getOne(owner)).toMatchObject({ file_status: 'ready', version: 2 });
    expect(await getObject(`files/${upload.id}`)).toEqual(image);
  });

  it('ends a scan as scan_failed when its quarantine copy disappears before the release copies it', async () => {
    const { upload } = await quarantined(png(33, 33));
    const gone = 'remove-the-quarantine-copy-before-the-release';
    (await s3()).client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'CopyObjectCommand') await deleteObject(upload.s3_key);
        return next(args);
      },
      { step: 'initialize', name: gone },
    );
    try {
      expect(await handler(message(upload.id))).toEqual({ batchItemFailures: [] });
    } finally {
      (await s3()).client.middlewareStack.remove(gone);
    }
    expect(await statusOf(upload.id)).toMatchObject({ status: 'error', error_code: 'scan_failed' });
  });

  it('condemns the EICAR test file', async () => {
    const { upload, owner } = await quarantined(EICAR);
    await handler(message(upload.id));
    expect(await statusOf(upload.id)).toMatchObject({ status: 'error', error_code: 'malware_detected' });
    expect(await getOne(owner)).toMatchObject({ file_status: 'error', error_code: 'malware_detected' });
  });

  it('refuses a wrong type by its magic bytes', async () => {
    const { upload } = await quarantined(Buffer.from('GIF89a-but-not-really'));
    await handler(message(upload.id));
    expect(await statusOf(upload.id)).toMatchObject({ status: 'error', error_code: 'unsupported_type' });
  });

  it('refuses a file above the profile size, wherever it came from', async () => {
    const { upload } = await quarantined(Buffer.concat([png(20, 20), Buffer.alloc(5 * 1024 * 1024)]));
    await handler(message(upload.id));
    expect(await statusOf(upload.id)).toMatchObject({ status: 'error', error_code: 'file_too_large' });
  });

  it('refuses bytes that changed since they were hashed', async () => {
    const { upload } = await quarantined(png(26, 26));
    await putObject(upload.s3_key, png(27, 27), 'application/octet-stream');
    await handler(message(upload.id));
    expect(await statusOf(upload.id)).toMatchObject({ status: 'error', error_code: 'content_changed' });
  });

  // Jobs are dispatched from committed records, so a missing one was deleted since, and never comes back.
  it('drops a job whose upload no longer exists, however young its message', async () => {
    const gone = {
      Records: [{ messageId: 'young', receiptHandle: 'r', body: JSON.stringify({ upload_id: newUlid() }), attributes: { SentTimestamp: String(Date.now()) } }],
    } as unknown as SQSEvent;
    expect(await handler(gone)).toEqual({ batchItemFailures: [] });
  });

  it('does nothing more for a redelivered message', async () => {
    const { upload, owner } = await quarantined(png(25, 25));
    await handler(message(upload.id, 'm-1'));
    const after = await getOne(owner);
    expect(await handler(message(upload.id, 'm-1'))).toEqual({ batchItemFailures: [] });
    expect(await getOne(owner)).toEqual(after);
  });

  it('reports a message it cannot process as a batch item failure, so that it is retried and then dead-lettered', async () => {
    const event = { Records: [{ messageId: 'broken', body: 'not json' }] } as unknown as SQSEvent;
    expect(await handler(event)).toEqual({ batchItemFailures: [{ itemIdentifier: 'broken' }] });
  });
});

describe('GuardDuty verdicts', () => {
  it('release a validated file only once the clean verdict arrives, in either order', async () => {
    process.env.MALWARE_SCANNER = 'guardduty';
    resetSettings();
    try {
      const first = await quarantined(png(33, 33));
      await handler(message(first.upload.id));
      expect(await statusOf(first.upload.id)).toMatchObject({ status: 'quarantine', checks: { validation: 'passed', malware: 'pending' } });
      await applyVerdict(first.upload.s3_key, 'clean', new Date());
      expect(await statusOf(first.upload.id)).toMatchObject({ status: 'ready' });

      const second = await quarantined(png(34, 34));
      await applyVerdict(second.upload.s3_key, 'clean', new Date());
      await handler(message(second.upload.id));
      expect(await statusOf(second.upload.id)).toMatchObject({ status: 'ready' });
    } finally {
      delete process.env.MALWARE_SCANNER;
      resetSettings();
    }
  });

  it('are kept when they arrive before the upload record, and applied by the scan', async () => {
    process.env.MALWARE_SCANNER = 'guardduty';
    resetSettings();
    try {
      for (const [bytes, verdict, expected] of [
        [png(36, 36), 'clean', { status: 'ready' }],
        [png(37, 37), 'malicious', { status: 'error', error_code: 'malware_detected' }],
      ] as const) {
        const session = { id: newUlid() };
        // GuardDuty scans the quarantine copy as soon as it lands, possibly before the record commits.
        await applyVerdict(`quarantine/${session.id}`, verdict, new Date());
        const { upload } = await quarantined(bytes, 'early.png', session);
        await handler(message(upload.id));
        expect(await statusOf(upload.id)).toMatchObject(expected);
      }
    } finally {
      delete process.env.MALWARE_SCANNER;
      resetSettings();
    }
  });

  it('count only for objects the service wrote: a verdict on a client-writable session object is ignored', async () => {
    const session = { id: newUlid() };
    const { upload } = await quarantined(png(38, 38), 'session.png', session);
    expect(upload.s3_key).toBe(`quarantine/${session.id}`);
    await putObject(`uploads/${session.id}`, EICAR, 'application/octet-stream');
    await applyVerdict(`uploads/${session.id}`, 'malicious', new Date());
    await handler(message(upload.id));
    expect(await statusOf(upload.id)).toMatchObject({ status: 'ready' });
  });

  it('never lose a check when the worker and the verdict race', async () => {
    process.env.MALWARE_SCANNER = 'guardduty';
    resetSettings();
    try {
      const uploads = await Promise.all(Array.from({ length: 8 }, (_, i) => quarantined(png(40 + i, 40))));
      await Promise.all(uploads.flatMap(({ upload }) => [handler(message(upload.id)), applyVerdict(upload.s3_key, 'clean', new Date())]));
      for (const { upload } of uploads) expect(await statusOf(upload.id)).toMatchObject({ status: 'ready' });
    } finally {
      delete process.env.MALWARE_SCANNER;
      resetSettings();
    }
  });

  it('turn a failed scan into error with a safe code', async () => {
    const { upload } = await quarantined(png(35, 35));
    await applyVerdict(upload.s3_key, 'failed', new Date());
    expect(await statusOf(upload.id)).toMatchObject({ status: 'error', error_code: 'scan_failed' });
  });
});
