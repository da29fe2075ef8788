import * as z from 'zod';
import { newUlid } from '../domain/ids.js';
import { validationFailed } from '../errors.js';
import { once } from '../domain/validation.js';
import { attributeEquals, itemAbsent } from '../store/conditions.js';
import { keys } from '../store/keys.js';
import { parseFound } from '../store/entity.js';
import { getOne } from '../store/read.js';
import type { WriteItem } from '../store/transact.js';
import type { IncomingFile } from './accept.js';
import { presignedPost } from './s3.js';
import { AREAS, getObject } from './storage.js';

/**
 * Upload sessions (DESIGN.md section 6): files larger than a request body can carry go straight to
 * S3 through a presigned POST whose policy bounds the size (content-length-range), and the
 * multipart operation then names the session instead of carrying the bytes.
 */
const SESSION_SECONDS = 15 * 60;

export const UploadSession = once(() =>
  z
    .object({
      id: z.string(),
      file_name: z.string(),
      max_bytes: z.number().int(),
      expires_at: z.string(),
      upload: z
        .object({ url: z.string(), fields: z.record(z.string(), z.string()) })
        .meta({ description: 'POST the file as multipart/form-data to url, with these fields first and the file last (field name "file").' }),
    })
    .meta({ id: 'UploadSession' }),
);
export type UploadSession = z.infer<ReturnType<typeof UploadSession>>;

/** Whose upload a session holds: an organisation's, one project's of it (project credentials), or a shared external provider's. */
export type SessionScope =
  | { organisationId: string; projectId?: string; providerId?: never }
  | { providerId: string; organisationId?: never; projectId?: never };

const sessionRecordSchema = once(() =>
  z.looseObject({
    id: z.string(),
    purpose: z.string(),
    /** Absent for provider sessions. */
    organisation_id: z.string().optional(),
    /** Present for provider sessions only. */
    provider_id: z.string().optional(),
    /** Absent for organisation sessions (logo, diagram), which predate project ones. */
    project_id: z.string().optional(),
    created_by: z.string(),
    file_name: z.string(),
    max_bytes: z.number().int(),
    s3_key: z.string(),
    status: z.enum(['open', 'consumed']),
    expires_at: z.number(),
  }),
);
type SessionRecord = z.output<ReturnType<typeof sessionRecordSchema>>;

export async function createSession(input: { purpose: string; maxBytes: number; fileName: string; scope: SessionScope; userId: string; now: Date }) {
  const id = newUlid(input.now.getTime());
  const s3Key = `${AREAS.sessions}${id}`;
  const expires = Math.floor(input.now.getTime() / 1000) + SESSION_SECONDS;
  const post = await presignedPost({
    Key: s3Key,
    Conditions: [['content-length-range', 1, input.maxBytes]],
    Expires: SESSION_SECONDS,
  });
  const record: SessionRecord = {
    id,
    purpose: input.purpose,
    ...(input.scope.organisationId ? { organisation_id: input.scope.organisationId } : {}),
    ...(input.scope.providerId ? { provider_id: input.scope.providerId } : {}),
    ...(input.scope.projectId ? { project_id: input.scope.projectId } : {}),
    created_by: input.userId,
    file_name: input.fileName,
    max_bytes: input.maxBytes,
    s3_key: s3Key,
    status: 'open',
    expires_at: expires,
  };
  const session: UploadSession = {
    id,
    file_name: input.fileName,
    max_bytes: input.maxBytes,
    expires_at: new Date(expires * 1000).toISOString(),
    upload: { url: post.url, fields: post.fields },
  };
  const writes: WriteItem[] = [
    { kind: 'put', item: { ...keys.uploadSession(id), entity: 'upload-session', ...record, ttl: expires + 86_400 }, condition: itemAbsent() },
  ];
  return { session, writes };
}

/** Why an empty file is refused at the edge (422 empty_file), inline or through a session. */
export const EMPTY_FILE_DETAIL = 'the file is empty (0 bytes): send the file with its content';

const invalid = (detail: string) => validationFailed([{ pointer: '/upload_session', detail, code: 'invalid_upload_session' }]);

/** The session's file, when the session is this caller's, for this purpose and scope, open and filled. */
export async function readSession(
  id: string,
  expect: { purpose: string; scope: SessionScope; userId: string; now: Date },
): Promise<{ record: SessionRecord; file: IncomingFile }> {
  const record = parseFound(sessionRecordSchema(), await getOne(keys.uploadSession(id)));
  const sameScope =
    record?.organisation_id === expect.scope.organisationId && record?.project_id === expect.scope.projectId && record?.provider_id === expect.scope.providerId;
  if (!record || record.purpose !== expect.purpose || !sameScope || record.created_by !== expect.userId) {
    throw invalid('no such upload session for this upload');
  }
  if (record.status !== 'open') throw invalid('the upload session has been used');
  if (record.expires_at * 1000 < expect.now.getTime()) throw invalid('the upload session has expired');
  const bytes = await getObject(record.s3_key);
  if (!bytes) throw invalid('no file has been uploaded to the session');
  // S3 refuses an empty POST (content-length-range starts at 1); an emulator may not, so the edge checks again.
  if (!bytes.length) throw validationFailed([{ pointer: '/upload_session', code: 'empty_file', detail: EMPTY_FILE_DETAIL }]);
  return { record, file: { file_name: record.file_name, declared_type: 'application/octet-stream', bytes } };
}

/** A session names one upload only: consumed in the same transaction as the upload it becomes. */
export function consumeSessionWrite(id: string): WriteItem {
  return {
    kind: 'update',
    key: keys.uploadSession(id),
    update: 'SET #s = :c',
    names: { '#s': 'status' },
    values: { ':c': 'consumed' },
    condition: attributeEquals('status', 'open'),
    onConditionFailed: () => invalid('the upload session has been used'),
  };
}
