import * as z from 'zod';
import { ApiError, payloadTooLarge } from '../../errors.js';
import { MultipartError, parseMultipart } from '../../files/multipart.js';
import { INLINE_UPLOAD_LIMIT, PROFILES, type ProfileId } from '../../files/profiles.js';
import { createSession, EMPTY_FILE_DETAIL, readSession, UploadSession, type SessionScope } from '../../files/sessions.js';
import type { Key } from '../../store/keys.js';
import type { CredentialType } from '../../domain/permissions.js';
import { NOT_BLANK, once, singleLine } from '../../domain/validation.js';
import { Ulid } from './common.js';
import { declarationsOf, type Deferred, type Group, type OperationContext, type PermissionRule } from './operation.js';

/** A file name is shown to people later: the same text rule as any other name. */
const FileName = once(() => singleLine().max(255));

/** The file part as the form reader hands it over; its name and media type come from the caller. */
const FilePart = once(() =>
  z
    .object(
      {
        file_name: FileName(),
        declared_type: singleLine(),
        bytes: z.custom<Buffer>((v) => Buffer.isBuffer(v)),
      },
      { error: 'must be a file part' },
    )
    // Refused here, at the edge, rather than stored, queued and failed by the scan (which would leave an item in error).
    .refine((f) => f.bytes.length > 0, { message: EMPTY_FILE_DETAIL, params: { code: 'empty_file' } }),
);

/**
 * A multipart upload carries the file inline, or names an upload session that holds a larger one,
 * beside the operation's own form fields (strings: a form cannot say null).
 */
const FILE_FIELDS = once(() => ({
  file: FilePart().optional(),
  upload_session: Ulid.optional().meta({ description: 'ULID of an upload session holding the file (large uploads).' }),
}));
type FileFields = z.output<z.ZodObject<ReturnType<typeof FILE_FIELDS>>>;

/** Exactly one of `sources` (the file part, the upload session, and whatever else the operation takes instead) must be sent. */
const uploadForm = <F extends z.ZodRawShape>(fields: F, sources: readonly string[]) =>
  z.strictObject({ ...FILE_FIELDS(), ...fields }).refine((v) => sources.filter((s) => (v as Record<string, unknown>)[s] !== undefined).length === 1, {
    message: `send exactly one of ${sources.join(', ')}`,
    path: ['file'],
  });

/** A form's fields, and its one file part as `file` ({file_name, declared_type, bytes}). */
async function readUploadForm(raw: Buffer | undefined, contentType: string): Promise<Record<string, unknown>> {
  try {
    const { fields, files } = await parseMultipart(raw ?? Buffer.alloc(0), contentType, { fileBytes: INLINE_UPLOAD_LIMIT, files: 1 });
    const [file] = files;
    return { ...fields, ...(file ? { [file.field]: { file_name: file.fileName, declared_type: file.declaredType, bytes: file.bytes } } : {}) };
  } catch (error) {
    if (!(error instanceof MultipartError)) throw error;
    if (error.message === 'file_too_large') {
      throw payloadTooLarge(
        `Files above ${INLINE_UPLOAD_LIMIT / 1024 / 1024} MiB go through an upload session: create one, POST the file to it, then name it in upload_session.`,
      );
    }
    throw new ApiError(400, 'malformed_multipart', 'Bad Request', `The multipart/form-data body cannot be read: ${error.message}.`);
  }
}

/**
 * The body of an upload operation: the form with its file inline or an upload session, the
 * operation's fields, and its reader. Its schema and described fields are built at first use.
 */
export const uploadBody = <F extends z.ZodRawShape = Record<never, never>>(
  what: string,
  fields: () => F = () => ({}) as F,
  alternatives: readonly (keyof F & string)[] = [],
) => ({
  schema: () => uploadForm(fields(), ['file', 'upload_session', ...alternatives]),
  mediaType: 'multipart/form-data' as const,
  form: { what, fields: () => ({ upload_session: FILE_FIELDS().upload_session, ...fields() }), sources: ['file', 'upload_session', ...alternatives] },
  read: readUploadForm,
});

export const uploadDescription = (profile: ProfileId) =>
  `Inline files up to 4 MiB go in the file part. Larger ones (up to ${PROFILES[profile].maxBytes / 1024 / 1024} MiB) go through an upload session (x-extension): create it, POST the file to its presigned URL, then send upload_session instead of file. An empty file (0 bytes) is refused with 422, errors code empty_file.`;

/** The file of an upload form: inline, or from this caller's session for this purpose and scope. */
export async function formFile(ctx: OperationContext, body: FileFields, profile: ProfileId, scope: SessionScope) {
  const session = body.upload_session
    ? await readSession(body.upload_session, { purpose: profile, scope, userId: ctx.caller.userId, now: ctx.now })
    : undefined;
  return { file: session ? session.file : body.file!, session: session ? { id: session.record.id } : undefined };
}

/** Declares the upload-session extension of an upload operation: a presigned S3 POST bounded by content-length-range. */
export function uploadSessionOperation<P extends z.ZodType>(def: {
  id: string;
  group: Group;
  path: string;
  params: Deferred<P>;
  profile: ProfileId;
  what: string;
  /** The operations that take the session's file, named in the description. */
  takenBy: string;
  /** When the target refuses an upload, for the description. */
  refusals?: string;
  /** Organisation credentials unless given: the logo and the setup diagram are organisation uploads. */
  credential?: CredentialType[];
  permission: PermissionRule;
  prefetch: (params: z.output<P>) => Key[];
  /** Throws unless the upload's target exists for this caller and takes uploads; returns the scope the session belongs to. */
  target: (ctx: OperationContext, params: z.output<P>) => SessionScope;
}) {
  const profile = PROFILES[def.profile];
  return declarationsOf(def.group)({
    id: def.id,
    method: 'POST',
    path: def.path,
    summary: `Extension: an upload session for a ${def.what} too large to send inline: a presigned S3 POST bounded by content-length-range.`,
    description: [
      `Send the file name; the answer holds a presigned S3 POST (url and fields) for one file of at most ${profile.maxBytes / 1024 / 1024} MiB, which expires unused after 15 minutes.`,
      `POST the file there, then name the session in upload_session of ${def.takenBy}: the file is then scanned as an inline one is.`,
      'A session serves one upload, by the same user, of the same kind and in the same scope; naming one that is used, expired, empty or another\u2019s is 422 with invalid_upload_session at /upload_session.',
      ...(def.refusals ? [def.refusals] : []),
    ].join(' '),
    credential: def.credential ?? ['organisation'],
    permission: def.permission,
    success: 201,
    params: def.params,
    query: () => z.strictObject({}),
    body: { schema: () => z.strictObject({ file_name: FileName().regex(NOT_BLANK, 'must not be blank').trim() }), mediaType: 'application/json' },
    response: UploadSession,
    extension: 'upload-session',
    uses: { files: true },
    sideEffects: ['Creates an upload session that expires unused after 15 minutes', 'Writes an audit record'],
    prefetch: def.prefetch,
    handle: async (ctx, { params, body }) => {
      const scope = def.target(ctx, params);
      const { session, writes } = await createSession({
        purpose: profile.id,
        maxBytes: profile.maxBytes,
        fileName: body.file_name,
        scope,
        userId: ctx.caller.userId,
        now: ctx.now,
      });
      return { data: session, writes, auditTarget: { ...(params as Record<string, string>), upload_session: session.id } };
    },
  });
}
