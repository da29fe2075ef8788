import { stillAuthorised } from '../auth/revalidate.js';
import { settings } from '../config.js';
import { logger } from '../log.js';
import { attributeEquals, setFields } from '../store/conditions.js';
import { keys, type Key } from '../store/keys.js';
import { getMany, getOne, keyString } from '../store/read.js';
import { commit, type WriteItem } from '../store/transact.js';
import { inspect, looksMalicious, type Inspection } from './inspect.js';
import { PROFILES } from './profiles.js';
import { AREAS, copyObject, deleteObject, getObject } from './storage.js';
import { toUpload, uploadsWithHash, type UploadError, type UploadRecord, type UploadStatus } from './uploads.js';

/**
 * The scan pipeline. The worker validates an upload (detected type, size, image dimensions) and,
 * with the local scanner, looks for malware itself; on AWS the malware verdict arrives separately
 * from GuardDuty Malware Protection for S3 and goes through `applyVerdict`. An upload is released
 * into the files area only when both checks have passed. Every step is idempotent: a redelivered
 * message or verdict finds the record already moved on and does nothing.
 */
export type MalwareVerdict = 'clean' | 'malicious' | 'failed';

/** What the owner shows of its file, beside the status. */
const MIRRORED = ['error_code', 's3_key', 'detected_type', 'width', 'height'] as const;

/**
 * Mirrors the upload's status (and what owners show of it) into its owner, when the owner still
 * shows this upload; the owner's version moves so that its ETag changes with its representation.
 */
async function ownerMirror(upload: UploadRecord, status: UploadStatus, changes: Record<string, unknown>, now: Date): Promise<WriteItem[]> {
  const owner = await getOne(upload.owner);
  if (!owner || owner.upload_id !== upload.id) return [];
  const fields: Record<string, unknown> = { file_status: status, updated_at: now.toISOString() };
  for (const name of MIRRORED) if (name in changes) fields[name] = changes[name];
  const set = setFields(fields);
  return [
    {
      kind: 'update',
      key: upload.owner as Key,
      update: `${set.expression} ADD #v :one`,
      names: { ...set.names, '#v': 'version' },
      values: { ...set.values, ':one': 1 },
      condition: attributeEquals('upload_id', upload.id),
    },
  ];
}

async function settle(upload: UploadRecord, changes: Record<string, unknown>, status: UploadStatus, now: Date): Promise<void> {
  const set = setFields({ ...changes, status, scanned_at: now.toISOString() });
  const update: WriteItem = {
    kind: 'update',
    key: keys.upload(upload.id),
    update: set.expression,
    names: set.names,
    values: set.values,
    condition: attributeEquals('status', 'quarantine'),
    onConditionFailed: () => new AlreadySettled(),
  };
  // Clients see the owner change only when the status does; an intermediate check result stays internal.
  const mirror = status === 'quarantine' ? [] : await ownerMirror(upload, status, changes, now);
  try {
    await commit([update, ...mirror]);
  } catch (error) {
    if (!(error instanceof AlreadySettled)) throw error;
  }
}

class AlreadySettled extends Error {}

async function fail(upload: UploadRecord, code: UploadError, now: Date): Promise<void> {
  logger.info('upload refused', { upload_id: upload.id, code });
  await settle(upload, { error_code: code }, 'error', now);
}

async function release(upload: UploadRecord, inspection: Inspection, now: Date): Promise<void> {
  const released = `${AREAS.released}${upload.id}`;
  await copyObject(upload.s3_key, released);
  await settle(
    upload,
    {
      s3_key: released,
      detected_type: inspection.detectedType,
      width: inspection.width ?? null,
      height: inspection.height ?? null,
      checks: { validation: 'passed', malware: 'clean' },
    },
    'ready',
    now,
  );
  await deleteObject(upload.s3_key);
}

/** Seed: a confirmed malicious verdict turns every upload with the same SHA-256 into error, everywhere. */
export async function condemnHash(sha: string, now: Date): Promise<void> {
  const affected = await uploadsWithHash(sha);
  for (const upload of affected) {
    if (upload.error_code === 'malware_detected') continue;
    const set = setFields({ status: 'error', error_code: 'malware_detected', scanned_at: now.toISOString() });
    const writes: WriteItem[] = [
      { kind: 'update', key: keys.upload(upload.id), update: set.expression, names: set.names, values: set.values },
      ...(await ownerMirror(upload, 'error', { error_code: 'malware_detected' }, now)),
    ];
    await commit(writes);
  }
  await Promise.all([...new Set(affected.map((u) => u.s3_key))].map((key) => deleteObject(key)));
  logger.warn('malicious file condemned', { sha256: sha, uploads: affected.length });
}

/** The scan job of one upload (the SQS message names the upload). */
export async function processScan(uploadId: string, now: Date): Promise<void> {
  const found = await getMany([keys.upload(uploadId), keys.uploadVerdict(uploadId)]);
  const item = found.get(keyString(keys.upload(uploadId)));
  if (!item) return;
  let upload = toUpload(item);
  if (upload.status !== 'quarantine' || upload.checks.validation === 'passed') return;
  const early = found.get(keyString(keys.uploadVerdict(uploadId)))?.verdict as MalwareVerdict | undefined;
  if (early === 'malicious') return condemnHash(upload.sha256, now);
  if (early === 'failed') return fail(upload, 'scan_failed', now);
  if (early === 'clean') upload = { ...upload, checks: { ...upload.checks, malware: 'clean' } };
  const attribution = { tokenId: upload.token_id, userId: upload.uploaded_by, scope: upload.authority.scope, permissions: upload.authority.permissions };
  if (!(await stillAuthorised(attribution, now))) return fail(upload, 'authorisation_lost', now);
  const bytes = await getObject(upload.s3_key);
  if (!bytes) return fail(upload, 'scan_failed', now);
  const local = settings().MALWARE_SCANNER === 'local';
  if (local && looksMalicious(bytes)) return condemnHash(upload.sha256, now);
  const result = await inspect(bytes, PROFILES[upload.profile]);
  if ('rejected' in result) return fail(upload, result.rejected, now);
  if (local || upload.checks.malware === 'clean') return release(upload, result, now);
  await settle(upload, { checks: { validation: 'passed', malware: upload.checks.malware }, pending_inspection: result }, 'quarantine', now);
}

/**
 * A malware verdict for the object at `s3Key` (GuardDuty's result event on AWS). Object keys end
 * with the upload id (a session's object becomes the upload of the same id). A verdict can beat
 * its upload record: a session object is scanned as soon as the client posts it, and an inline
 * object is stored before its record commits. Such a verdict is kept for the scan job to apply.
 */
export async function applyVerdict(s3Key: string, verdict: MalwareVerdict, now: Date): Promise<void> {
  const uploadId = s3Key.slice(s3Key.lastIndexOf('/') + 1);
  const item = await getOne(keys.upload(uploadId));
  if (!item) {
    const expires = Math.floor(now.getTime() / 1000) + 7 * 86_400;
    await commit([{ kind: 'put', item: { ...keys.uploadVerdict(uploadId), entity: 'upload-verdict', verdict, s3_key: s3Key, received_at: now.toISOString(), ttl: expires } }]);
    return;
  }
  const upload = toUpload(item);
  if (verdict === 'malicious') return condemnHash(upload.sha256, now);
  if (upload.status !== 'quarantine') return;
  if (verdict === 'failed') return fail(upload, 'scan_failed', now);
  const inspection = (item as { pending_inspection?: Inspection }).pending_inspection;
  if (upload.checks.validation === 'passed' && inspection) {
    if (!(await stillAuthorised({ tokenId: upload.token_id, userId: upload.uploaded_by, scope: upload.authority.scope, permissions: upload.authority.permissions }, now))) {
      return fail(upload, 'authorisation_lost', now);
    }
    return release(upload, inspection, now);
  }
  await settle(upload, { checks: { validation: upload.checks.validation, malware: 'clean' } }, 'quarantine', now);
}
