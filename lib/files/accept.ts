import type { Readable } from 'node:stream';
import { newUlid } from '../domain/ids.js';
import type { Permission } from '../domain/permissions.js';
import type { FileOwner } from '../store/file-owners.js';
import type { AccessScope } from '../store/identity.js';
import type { Key } from '../store/keys.js';
import type { WriteItem } from '../store/transact.js';
import { ApiError } from '../errors.js';
import { typeMismatch, type TypeMismatch } from './detect.js';
import { extensionFits, PROFILES, type ProfileId } from './profiles.js';
import { AREAS, copyObject, putObject, sha256, streamObject } from './storage.js';
import { putItem } from '../store/update.js';
import { reusableRelease, scanWatchItem, uploadPut, uploadsWithHash, type UploadRecord } from './uploads.js';

export interface IncomingFile {
  file_name: string;
  declared_type: string;
  bytes: Buffer;
}

export interface AcceptRequest {
  profile: ProfileId;
  owner: Key;
  /** The owner scope: an organisation (and project), or a shared external provider. */
  organisationId?: string;
  projectId?: string;
  providerId?: string;
  userId: string;
  tokenId: string;
  authority: { scope: AccessScope; permissions: Permission[] };
  file: IncomingFile;
  /**
   * The upload session the file came through: its id becomes the upload's id. With its object's
   * key, the quarantine copy is made inside S3 instead of through the function (large bulk uploads).
   */
  session?: { id: string; s3Key?: string };
  now: Date;
}

/** 422 file_type_mismatch, naming what the bytes are and what the uploader said they are (null where it said nothing). */
function mismatchProblem(m: TypeMismatch): ApiError {
  const claims = [
    ...(m.declaredType !== undefined && m.declaredType !== m.detectedType ? [`it is sent as ${m.declaredType}`] : []),
    ...(!extensionFits(m.detectedType, m.extension) ? [`its name ends in .${m.extension}`] : []),
  ];
  const detail = `The file is ${m.detectedType}, but ${claims.join(' and ')}; send it as what it is, under a name that says so.`;
  return new ApiError(422, 'file_type_mismatch', 'Unprocessable Content', detail, {
    errors: [{ pointer: '/file', code: 'file_type_mismatch', detail }],
    members: { detected_type: m.detectedType, claimed: { media_type: m.declaredType ?? null, extension: m.extension ?? null } },
  });
}

/**
 * Takes an upload into the scan pipeline (DESIGN.md section 6): hash it, reuse an identical
 * released file where the seed allows, otherwise keep it in quarantine, which queues its scan (lib/jobs/dispatch.ts). Returns
 * the record and the writes for the caller's transaction.
 */
export async function acceptUpload(r: AcceptRequest): Promise<{ upload: UploadRecord; writes: WriteItem[] }> {
  // A part's bytes came with the request, so its claim is checked before anything is stored. A
  // session's object stays writable by its client: its claim is checked by the scan, on the copy
  // only this service writes, as the rest of its content is.
  if (!r.session) {
    const mismatch = await typeMismatch(r.file.bytes, PROFILES[r.profile], { declaredType: r.file.declared_type, fileName: r.file.file_name });
    if (mismatch) throw mismatchProblem(mismatch);
  }
  const id = r.session?.id ?? newUlid(r.now.getTime());
  const hash = sha256(r.file.bytes);
  const base = {
    id,
    profile: r.profile,
    sha256: hash,
    size: r.file.bytes.length,
    file_name: r.file.file_name,
    declared_type: r.file.declared_type,
    organisation_id: r.organisationId ?? null,
    project_id: r.projectId ?? null,
    provider_id: r.providerId ?? null,
    owner: r.owner,
    uploaded_by: r.userId,
    token_id: r.tokenId,
    authority: r.authority,
    created_at: r.now.toISOString(),
  };
  const reusable = r.file.bytes.length <= PROFILES[r.profile].maxBytes ? reusableRelease(await uploadsWithHash(hash), base) : undefined;
  if (reusable) {
    const upload: UploadRecord = {
      ...base,
      status: 'ready',
      error_code: null,
      s3_key: reusable.s3_key,
      detected_type: reusable.detected_type,
      width: reusable.width,
      height: reusable.height,
      checks: { validation: 'passed', malware: 'clean' },
      reused_from: reusable.id,
      scanned_at: reusable.scanned_at,
    };
    return { upload, writes: [uploadPut(upload)] };
  }
  // A session's object stays writable by its client until the session expires, so the bytes that
  // were hashed are copied into quarantine, under a key only this service writes, and scanned there.
  const s3Key = `${AREAS.quarantine}${id}`;
  // A copy made inside S3 may hold bytes the client wrote after they were hashed: the scan hashes
  // the quarantine copy again and refuses it then (content_changed).
  if (r.session?.s3Key) await copyObject(r.session.s3Key, s3Key);
  else await putObject(s3Key, r.file.bytes, 'application/octet-stream');
  const upload: UploadRecord = {
    ...base,
    status: 'quarantine',
    error_code: null,
    s3_key: s3Key,
    detected_type: null,
    width: null,
    height: null,
    checks: { validation: 'pending', malware: 'pending' },
    reused_from: null,
    scanned_at: null,
  };
  // The scan's watch is written before the request commits, not in its transaction: 25 files with
  // their artefacts would pass DynamoDB's 100 items. A watch whose upload never committed is
  // removed by the sweep (sweepStalledScans), as it finds no upload in quarantine.
  await putItem(scanWatchItem(upload));
  return { upload, writes: [uploadPut(upload)] };
}

/** What an upload's owner (a logo, a diagram) shows of it; the scan pipeline keeps these mirrored. */
export function ownerShows(upload: UploadRecord, userId: string, now: Date) {
  return {
    upload_id: upload.id,
    file_status: upload.status,
    error_code: null,
    file_name: upload.file_name,
    size: upload.size,
    detected_type: upload.detected_type,
    width: upload.width,
    height: upload.height,
    s3_key: upload.s3_key,
    uploaded_at: now.toISOString(),
    uploaded_by: userId,
  };
}

/** What an owner (a logo, a diagram, a provider artefact) shows of its file that readyFile reads. */
type ShownFile = { file_status: FileOwner['file_status'] | null; s3_key: string | null; detected_type: string | null };

/** An owner's file, streamed, only once released (ready, which the scan sets with the detected type); undefined otherwise. */
export async function readyFile(owner: ShownFile | undefined): Promise<{ contentType: string; stream: Readable; length: number } | undefined> {
  if (owner?.file_status !== 'ready' || owner.s3_key === null || owner.detected_type === null) return undefined;
  const object = await streamObject(owner.s3_key);
  return object ? { contentType: owner.detected_type, ...object } : undefined;
}
