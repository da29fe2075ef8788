import * as z from 'zod';
import { once } from '../domain/validation.js';
import { PERMISSIONS, type Permission } from '../domain/permissions.js';
import { attributeEquals, itemAbsent, setFields } from '../store/conditions.js';
import { parseEach, parseStored, storedSchema, sweptFields } from '../store/entity.js';
import type { AccessScope } from '../store/identity.js';
import { gsi1, keys, type Key } from '../store/keys.js';
import { queryAll, type Item } from '../store/read.js';
import type { OnConditionFailed, WriteItem } from '../store/transact.js';
import type { RejectionCode } from './inspect.js';
import { claimedTextType, PROFILES, type ProfileId } from './profiles.js';

/**
 * One uploaded file: where its bytes are, what it was checked against, and its state. The owner
 * is the record that shows the file to clients (an organisation's logo, a project's diagram); its
 * `file_status` mirrors this record so that a read of the owner needs no second round trip.
 */
export type UploadStatus = 'quarantine' | 'ready' | 'error';
/** `cancelled`: the owner stopped the processing (cancelEvidenceProcessing); the scan leaves such an upload alone. */
export type UploadError = RejectionCode | 'authorisation_lost' | 'scan_failed' | 'content_changed' | 'cancelled';

export interface UploadRecord {
  id: string;
  profile: ProfileId;
  status: UploadStatus;
  error_code: UploadError | null;
  s3_key: string;
  sha256: string;
  size: number;
  file_name: string;
  declared_type: string;
  detected_type: string | null;
  width: number | null;
  height: number | null;
  /** The owner scope: an organisation (and project), or a shared external provider (organisation_id null). */
  organisation_id: string | null;
  project_id: string | null;
  /** Absent on uploads that predate provider artefacts. */
  provider_id?: string | null;
  owner: Key;
  uploaded_by: string;
  token_id: string;
  /** What the uploader needed; the worker checks it again before its durable writes. */
  authority: { scope: AccessScope; permissions: Permission[] };
  /** Both must pass before release; on AWS the malware verdict comes from GuardDuty. */
  checks: { validation: 'pending' | 'passed'; malware: 'pending' | 'clean' };
  reused_from: string | null;
  /** Items beside the owner that show this upload (file links), by key string; a malicious verdict reaches them too. */
  mirrors?: Set<string>;
  created_at: string;
  scanned_at: string | null;
}

export const hashIndexKey = (sha: string) => `SHA256#${sha}`;

const nullableString = once(() => z.string().nullable());
const nullableNumber = once(() => z.number().nullable());

/** An upload record as stored under keys.upload (its GSI1 key is the hash of its bytes). */
export const uploadSchema = once(() =>
  storedSchema<UploadRecord>()(
    z.looseObject({
      id: z.string(),
      profile: z.enum(Object.keys(PROFILES) as [ProfileId, ...ProfileId[]]),
      status: z.enum(['quarantine', 'ready', 'error']),
      error_code: z
        .enum([
          'file_too_large',
          'empty_file',
          'unsupported_type',
          'file_type_mismatch',
          'image_unreadable',
          'image_dimensions_out_of_range',
          'malware_detected',
          'authorisation_lost',
          'scan_failed',
          'content_changed',
          'cancelled',
        ])
        .nullable(),
      s3_key: z.string(),
      sha256: z.string(),
      size: z.number(),
      file_name: z.string(),
      declared_type: z.string(),
      detected_type: nullableString(),
      width: nullableNumber(),
      height: nullableNumber(),
      organisation_id: nullableString(),
      project_id: nullableString(),
      provider_id: nullableString().optional(),
      owner: z.looseObject({ PK: z.string(), SK: z.string() }),
      uploaded_by: z.string(),
      token_id: z.string(),
      authority: z.looseObject({
        scope: z.discriminatedUnion('kind', [
          z.looseObject({ kind: z.literal('installation') }),
          z.looseObject({ kind: z.literal('organisation'), id: z.string() }),
          z.looseObject({ kind: z.literal('project'), id: z.string() }),
        ]),
        permissions: z.array(z.enum(PERMISSIONS)),
      }),
      checks: z.looseObject({ validation: z.enum(['pending', 'passed']), malware: z.enum(['pending', 'clean']) }),
      reused_from: nullableString(),
      mirrors: z.set(z.string()).optional(),
      created_at: z.string(),
      scanned_at: nullableString(),
    }),
  ),
);

export const toUpload = (item: Item): UploadRecord => parseStored(uploadSchema(), item);

export function uploadPut(u: UploadRecord): WriteItem {
  return {
    kind: 'put',
    item: { ...keys.upload(u.id), GSI1PK: hashIndexKey(u.sha256), GSI1SK: `UPLOAD#${u.id}`, entity: 'upload', ...u },
    condition: itemAbsent(),
  };
}

/**
 * The watch item of an upload in quarantine, in its creating transaction: the upload record's own
 * GSI1 key is its hash, so the index of uploads waiting for a scan needs an item of its own.
 */
export const scanWatchItem = (u: Pick<UploadRecord, 'id' | 'created_at'>) => ({
  ...keys.uploadScan(u.id),
  entity: 'upload-scan',
  upload_id: u.id,
  ...scanWatchIndex(u.id, u.created_at),
});

export function scanWatchPut(u: Pick<UploadRecord, 'id' | 'created_at'>): WriteItem {
  return { kind: 'put', item: scanWatchItem(u) };
}

export const scanWatchIndex = (uploadId: string, since: string) => ({ GSI1PK: gsi1.pendingScans, GSI1SK: `${since}#${uploadId}` });

/** A watch as the sweep reads it from the index: `position`, its index sort key, is what the sweep's move of it is conditional on. */
const scanWatchSchema = once(() => z.looseObject({ upload_id: z.string(), position: z.string(), ...sweptFields() }));
export type ScanWatch = z.output<ReturnType<typeof scanWatchSchema>>;

/** The watches of uploads whose scan was queued (or last re-queued) before `cutoff`. */
export async function scanWatchesBefore(cutoff: string): Promise<ScanWatch[]> {
  const items = await queryAll({
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK < :cutoff',
    ExpressionAttributeValues: { ':pk': gsi1.pendingScans, ':cutoff': cutoff },
  });
  return parseEach('scan watch', items, (item) => parseStored(scanWatchSchema(), { ...item, position: item.GSI1SK }));
}

/**
 * Stops an upload still in quarantine, as its owner asked: the scan then finds it settled and
 * leaves it alone (scan.ts), and a condemnation of its bytes still reaches it. `onSettled` answers
 * an upload that settled first.
 */
export function cancelUploadWrite(uploadId: string, now: Date, onSettled: OnConditionFailed): WriteItem {
  const set = setFields({ status: 'error', error_code: 'cancelled', scanned_at: now.toISOString() });
  return {
    kind: 'update',
    key: keys.upload(uploadId),
    update: set.expression,
    names: set.names,
    values: set.values,
    condition: attributeEquals('status', 'quarantine'),
    onConditionFailed: onSettled,
  };
}

/** Every upload with these bytes, across organisations and projects: a Query on the hash index. */
export async function uploadsWithHash(sha: string): Promise<UploadRecord[]> {
  const items = await queryAll(
    { IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :h', ExpressionAttributeValues: { ':h': hashIndexKey(sha) } },
    Number.POSITIVE_INFINITY,
  );
  return items.map(toUpload);
}

/**
 * Seed, Limits: a released physical file may be reused within a project (here: within the same
 * owner scope) when checksum, size, detected type, validation profile, file name, uploader and
 * image dimensions all match. Same checksum and size mean the same bytes, so dimensions match too
 * once the earlier upload was released, and so does the detected type, which for text depends
 * only on the bytes and the text type the upload claims (inspect.ts): that claim must match too.
 */
export function reusableRelease(
  candidates: UploadRecord[],
  next: Pick<UploadRecord, 'sha256' | 'size' | 'profile' | 'file_name' | 'declared_type' | 'uploaded_by' | 'organisation_id' | 'project_id' | 'provider_id'>,
) {
  const claimOf = (u: Pick<UploadRecord, 'profile' | 'declared_type' | 'file_name'>) =>
    claimedTextType(PROFILES[u.profile], { declaredType: u.declared_type, fileName: u.file_name });
  return candidates.find(
    (c) =>
      c.status === 'ready' &&
      c.sha256 === next.sha256 &&
      c.size === next.size &&
      c.profile === next.profile &&
      c.file_name === next.file_name &&
      claimOf(c) === claimOf(next) &&
      c.uploaded_by === next.uploaded_by &&
      c.organisation_id === next.organisation_id &&
      c.project_id === next.project_id &&
      (c.provider_id ?? null) === (next.provider_id ?? null),
  );
}
