import { beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import { watchQuarantinedUploads } from '../../lib/migrations/index.js';
import { gsi1, keys } from '../../lib/store/keys.js';
import { putAll } from '../../lib/store/batch.js';
import { getOne } from '../../lib/store/read.js';
import { useTestServices } from '../support/services.js';

beforeAll(async () => {
  await useTestServices();
});

/** An upload record as a release before scan watch items wrote it: no watch item beside it. */
async function unwatchedUpload(status: 'quarantine' | 'ready') {
  const id = newUlid();
  await putAll([{ ...keys.upload(id), entity: 'upload', id, status, created_at: '2026-11-01T00:00:00.000Z' }]);
  return id;
}

describe('migration uploads-scan-watch', () => {
  it('gives an upload still in quarantine the watch item the sweep reads', async () => {
    const id = await unwatchedUpload('quarantine');
    await watchQuarantinedUploads();
    expect(await getOne(keys.uploadScan(id))).toMatchObject({ upload_id: id, GSI1PK: gsi1.pendingScans });
  });

  it('leaves an upload that has settled without one', async () => {
    const id = await unwatchedUpload('ready');
    await watchQuarantinedUploads();
    expect(await getOne(keys.uploadScan(id))).toBeUndefined();
  });

  it('keeps a watch item that is there already, with its count of re-queues', async () => {
    const id = await unwatchedUpload('quarantine');
    await putAll([{ ...keys.uploadScan(id), entity: 'upload-scan', upload_id: id, requeues: 2 }]);
    await watchQuarantinedUploads();
    expect(await getOne(keys.uploadScan(id))).toMatchObject({ requeues: 2 });
  });
});
