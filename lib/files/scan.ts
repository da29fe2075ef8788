import { stillAuthorised } from '../auth/revalidate.js';
import { runAsFunction } from '../command-recording.js';
import { settings } from '../config.js';
import { logger } from '../log.js';
import { LEASE_SECONDS, MAX_REQUEUES, requeuesOf } from '../queues/recovery.js';
import { sendJob } from '../queues/sqs.js';
import { deleteAll } from '../store/batch.js';
import { attributeEquals, setFields } from '../store/conditions.js';
import { asUploadShown } from '../store/file-owners.js';
import { uploadNotRecorded } from '../store/guards.js';
import { keys, type Key } from '../store/keys.js';
import { getMany, getOne, keyString } from '../store/read.js';
import { commit, UnmappedConditionError, type WriteItem } from '../store/transact.js';
import { updateIf, updateReturning } from '../store/update.js';
import { inspect, looksMalicious, type Inspection } from './inspect.js';
import { PROFILES } from './profiles.js';
import { AREAS, copyObjectIfPresent, deleteObject, getObject, sha256 } from './storage.js';
import { scanWatchesBefore, scanWatchIndex, toUpload, uploadsWithHash, type UploadError, type UploadRecord, type UploadStatus } from './uploads.js';

/**
 * The scan pipeline. The worker validates an upload (detected type, size, image dimensions) and,
 * with the local scanner, looks for malware itself; on AWS the malware verdict arrives separately
 * from GuardDuty Malware Protection for S3 and goes through `applyVerdict`. Each check is recorded
 * with its own atomic update, and the write that completes the pair releases the file into the
 * files area. Every step is idempotent: a redelivered message or verdict finds the record already
 * moved on and does nothing.
 */
export type MalwareVerdict = 'clean' | 'malicious' | 'failed';

class AlreadySettled extends Error {
  override readonly name = 'AlreadySettled';
}

/** What the owner shows of its file, beside the status. */
const MIRRORED = ['error_code', 's3_key', 'detected_type', 'width', 'height'] as const;

/**
 * Mirrors the upload's status (and what owners show of it) into an item that shows it, when that
 * item still shows this upload: its owner, or a mirror (a file link to it). The item's version
 * moves so that its ETag changes with its representation.
 */
async function mirrorInto(key: Key, upload: UploadRecord, status: UploadStatus, changes: Record<string, unknown>, now: Date): Promise<WriteItem[]> {
  const shown = asUploadShown(await getOne(key));
  if (!shown || shown.upload_id !== upload.id) return [];
  if (shown.file_status === status && shown.error_code === (changes.error_code ?? shown.error_code)) return [];
  const fields: Record<string, unknown> = { file_status: status, updated_at: now.toISOString() };
  for (const name of MIRRORED) if (name in changes) fields[name] = changes[name];
  const set = setFields(fields);
  const mirror: WriteItem = {
    kind: 'update',
    key: { PK: key.PK, SK: key.SK },
    update: `${set.expression} ADD #v :one`,
    names: { ...set.names, '#v': 'version' },
    values: { ...set.values, ':one': 1 },
    condition: attributeEquals('upload_id', upload.id),
  };
  // An item listed in a collection (an evidence item of a control) names the revision its parent shows.
  const parent = shown.revision_key;
  if (!parent) return [mirror];
  return [mirror, { kind: 'update', key: { PK: parent.PK, SK: parent.SK }, update: 'ADD #r :one', names: { '#r': 'revision' }, values: { ':one': 1 } }];
}

const ownerMirror = (upload: UploadRecord, status: UploadStatus, changes: Record<string, unknown>, now: Date) =>
  mirrorInto(upload.owner, upload, status, changes, now);

/** The items that show an upload beside its owner (file links), by key string. */
const mirrorsOf = (upload: UploadRecord): Key[] =>
  [...(upload.mirrors ?? [])].map((k) => {
    const [PK, SK] = k.split('|') as [string, string];
    return { PK, SK };
  });

/** Moves a quarantined upload to ready or error, with its owner; a settled upload is left alone. */
async function settle(upload: UploadRecord, changes: Record<string, unknown>, status: 'ready' | 'error', now: Date): Promise<boolean> {
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
  try {
    await commit([update, { kind: 'delete', key: keys.uploadScan(upload.id) }, ...(await ownerMirror(upload, status, changes, now))]);
    return true;
  } catch (error) {
    if (error instanceof AlreadySettled) return false;
    throw error;
  }
}

async function fail(upload: UploadRecord, code: UploadError, now: Date): Promise<void> {
  logger.info('upload refused', { upload_id: upload.id, code });
  await settle(upload, { error_code: code }, 'error', now);
}

async function release(upload: UploadRecord, inspection: Inspection, now: Date): Promise<void> {
  const released = `${AREAS.released}${upload.id}`;
  if (!(await copyObjectIfPresent(upload.s3_key, released))) {
    // A duplicate delivery settled the upload since this one read it, and removed the quarantine
    // copy; if nothing settled it, the bytes are gone and the scan cannot end otherwise.
    const settled = await getOne(keys.upload(upload.id));
    if (settled?.status === 'quarantine') await fail(upload, 'scan_failed', now);
    return;
  }
  const changes = { s3_key: released, detected_type: inspection.detectedType, width: inspection.width ?? null, height: inspection.height ?? null };
  if (!(await settle(upload, changes, 'ready', now))) {
    // A duplicate delivery that released first wrote the same key, and it is that release's file;
    // a copy made by a release that lost to a condemnation must not outlive it.
    const settled = await getOne(keys.upload(upload.id));
    if (settled?.status === 'ready' && settled.s3_key === released) return;
    return deleteObject(released);
  }
  await deleteObject(upload.s3_key);
}

/**
 * Records one check as passed with its own nested attribute, so that the worker and the verdict
 * never overwrite each other; whichever completes the pair releases the file.
 */
async function pass(upload: UploadRecord, check: 'validation' | 'malware', inspection: Inspection | undefined, now: Date): Promise<void> {
  const names: Record<string, string> = { '#c': 'checks', '#k': check };
  const values: Record<string, unknown> = { ':v': check === 'validation' ? 'passed' : 'clean' };
  let update = 'SET #c.#k = :v';
  if (inspection) {
    names['#i'] = 'pending_inspection';
    values[':i'] = inspection;
    update += ', #i = :i';
  }
  const written = await updateReturning({ key: keys.upload(upload.id), update, names, values }, attributeEquals('status', 'quarantine'));
  if (!written) return;
  const after = toUpload(written);
  const pending = written.pending_inspection as Inspection | undefined;
  if (after.checks.validation !== 'passed' || after.checks.malware !== 'clean' || !pending) return;
  if (!(await stillAuthorised(attributionOf(upload), now))) return fail(upload, 'authorisation_lost', now);
  await release(after, pending, now);
}

/** A mirror deleted between its read and its write has nothing left to show. */
function ignoreGone(error: unknown): void {
  if (!(error instanceof UnmappedConditionError)) throw error;
}

/** Seed: a confirmed malicious verdict turns every upload with the same SHA-256 into error, everywhere: its owners and their mirrors. */
export async function condemnHash(sha: string, now: Date): Promise<void> {
  const affected = await uploadsWithHash(sha);
  for (const upload of affected) {
    const condemned = { error_code: 'malware_detected' };
    // Mirrors first: a condemnation that stops half way is done again, and the upload record marks it done.
    for (const mirror of mirrorsOf(upload)) {
      const writes = await mirrorInto(mirror, upload, 'error', condemned, now);
      if (writes.length) await commit(writes).catch((error: unknown) => ignoreGone(error));
    }
    if (upload.error_code === 'malware_detected') continue;
    const set = setFields({ status: 'error', error_code: 'malware_detected', scanned_at: now.toISOString() });
    await commit([
      { kind: 'update', key: keys.upload(upload.id), update: set.expression, names: set.names, values: set.values },
      ...(await ownerMirror(upload, 'error', { error_code: 'malware_detected' }, now)),
    ]);
  }
  // Every place these bytes may be: where each record points, its quarantine copy and its release.
  const objects = new Set(affected.flatMap((u) => [u.s3_key, `${AREAS.quarantine}${u.id}`, `${AREAS.released}${u.id}`]));
  await Promise.all([...objects].map((key) => deleteObject(key)));
  logger.warn('malicious file condemned', { sha256: sha, uploads: affected.length });
}

const attributionOf = (u: UploadRecord) => ({ tokenId: u.token_id, userId: u.uploaded_by, scope: u.authority.scope, permissions: u.authority.permissions });

/** The scan job of one upload (the SQS message names the upload, dispatched from its committed record). */
export async function processScan(uploadId: string, now: Date): Promise<void> {
  const found = await getMany([keys.upload(uploadId), keys.uploadVerdict(uploadId)]);
  const item = found.get(keyString(keys.upload(uploadId)));
  // Deleted since its job was dispatched (a provider's purge deletes its uploads): nothing is left to scan.
  if (!item) return;
  const upload = toUpload(item);
  if (upload.status !== 'quarantine' || upload.checks.validation === 'passed') return;
  const early = found.get(keyString(keys.uploadVerdict(uploadId)));
  const verdict = early?.s3_key === upload.s3_key ? (early.verdict as MalwareVerdict) : undefined;
  if (verdict === 'malicious') return condemnHash(upload.sha256, now);
  if (verdict === 'failed') return fail(upload, 'scan_failed', now);
  if (!(await stillAuthorised(attributionOf(upload), now))) return fail(upload, 'authorisation_lost', now);
  const bytes = await getObject(upload.s3_key);
  if (!bytes) return fail(upload, 'scan_failed', now);
  if (sha256(bytes) !== upload.sha256) return fail(upload, 'content_changed', now);
  const local = settings().MALWARE_SCANNER === 'local';
  if (local && looksMalicious(bytes)) return condemnHash(upload.sha256, now);
  const result = await inspect(bytes, PROFILES[upload.profile], { declaredType: upload.declared_type, fileName: upload.file_name });
  if ('rejected' in result) return fail(upload, result.rejected, now);
  if (local) return release(upload, result, now);
  if (verdict === 'clean') await pass(upload, 'malware', undefined, now);
  await pass(upload, 'validation', result, now);
}

/**
 * A malware verdict for the object at `s3Key` (GuardDuty's result event on AWS). Object keys end
 * with the upload id; a verdict counts only for an object this service wrote for the upload. A verdict
 * can beat its upload record (an inline object is stored before its record commits): it is kept,
 * written only while the record is still absent, for the scan job to apply.
 */
export function applyVerdict(s3Key: string, verdict: MalwareVerdict, now: Date): Promise<void> {
  // The verdict function's entry point: its handler and the tests standing in for GuardDuty come through here.
  return runAsFunction('workers/scan-verdict', () => applyVerdictOnce(s3Key, verdict, now));
}

async function applyVerdictOnce(s3Key: string, verdict: MalwareVerdict, now: Date): Promise<void> {
  const uploadId = s3Key.slice(s3Key.lastIndexOf('/') + 1);
  const item = await getOne(keys.upload(uploadId));
  if (!item) {
    const expires = Math.floor(now.getTime() / 1000) + 7 * 86_400;
    try {
      await commit([
        uploadNotRecorded(uploadId, () => new AlreadySettled()),
        {
          kind: 'put',
          item: { ...keys.uploadVerdict(uploadId), entity: 'upload-verdict', verdict, s3_key: s3Key, received_at: now.toISOString(), ttl: expires },
        },
      ]);
      return;
    } catch (error) {
      if (!(error instanceof AlreadySettled)) throw error;
      return applyVerdictOnce(s3Key, verdict, now);
    }
  }
  const upload = toUpload(item);
  // Only objects this service wrote count: a session object stays writable by its client until it expires.
  if (s3Key !== upload.s3_key && s3Key !== `${AREAS.quarantine}${upload.id}`) return;
  if (verdict === 'malicious') return condemnHash(upload.sha256, now);
  if (upload.status !== 'quarantine' || upload.s3_key !== s3Key) return;
  if (verdict === 'failed') return fail(upload, 'scan_failed', now);
  await pass(upload, 'malware', undefined, now);
}

/**
 * Uploads still in quarantine a lease's length after their scan was queued: the scan's message
 * was lost or its worker died (a scan takes seconds). Each is queued again, and its watch item
 * moves to now; one queued again MAX_REQUEUES times and still unsettled ends as `error`
 * (`scan_failed`), so that its owner shows a final status and the client can upload again. A file
 * whose validation passed waits for GuardDuty's verdict: nothing to queue, but the same limit
 * applies. Watch items of uploads settled another way (cancelled, condemned) are removed here.
 */
export async function sweepStalledScans(now: Date): Promise<{ requeued: number; ended: number }> {
  const cutoff = new Date(now.getTime() - LEASE_SECONDS * 1000).toISOString();
  const counts = { requeued: 0, ended: 0 };
  for (const watch of await scanWatchesBefore(cutoff)) {
    const uploadId = watch.upload_id;
    const asRead = attributeEquals('GSI1SK', watch.position);
    try {
      const item = await getOne(keys.upload(uploadId));
      const upload = item ? toUpload(item) : undefined;
      if (upload?.status !== 'quarantine') {
        await deleteAll([keys.uploadScan(uploadId)], 1);
      } else if (requeuesOf(watch) >= MAX_REQUEUES) {
        await fail(upload, 'scan_failed', now);
        counts.ended++;
      } else if (await updateIf(keys.uploadScan(uploadId), { ...scanWatchIndex(uploadId, now.toISOString()), requeues: requeuesOf(watch) + 1 }, asRead)) {
        if (upload.checks.validation !== 'passed') await sendJob('scan', { upload_id: uploadId });
        counts.requeued++;
      }
    } catch (error) {
      logger.error('could not recover a stalled scan', { upload_id: uploadId, error: error as Error });
    }
  }
  if (counts.requeued || counts.ended) logger.warn('stalled scans recovered', counts);
  return counts;
}
