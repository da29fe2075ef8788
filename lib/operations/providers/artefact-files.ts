import { newUlid } from '../../domain/ids.js';
import type { StoredArtefact } from '../../domain/provider-artefacts.js';
import { validationFailed } from '../../errors.js';
import { acceptUpload, type IncomingFile } from '../../files/accept.js';
import { PROFILES } from '../../files/profiles.js';
import { consumeSessionWrite } from '../../files/sessions.js';
import { keys } from '../../store/keys.js';
import type { WriteItem } from '../../store/transact.js';
import type { OperationContext } from '../kernel/operation.js';
import { ProviderParams, providerOf, providerPrefetch, PROVIDER_PATH } from './access.js';
import { HIERARCHY, uploaderNeeds } from './artefact-access.js';
import { formFile, uploadSessionOperation } from '../kernel/upload-form.js';

type ArtefactBase = Pick<StoredArtefact, 'provider_id' | 'release_id' | 'restricted' | 'ism_version_id'> & { name?: string | undefined };

/** A new artefact of the provider, as created: a link until a file is given to it. */
export function newArtefact(ctx: OperationContext, base: ArtefactBase, link?: string): StoredArtefact {
  const at = ctx.now.toISOString();
  return {
    id: newUlid(ctx.now.getTime()),
    provider_id: base.provider_id,
    release_id: base.release_id,
    kind: link ? 'link' : 'file',
    name: base.name ?? link ?? '',
    url: link ?? null,
    restricted: base.restricted,
    ism_version_id: base.ism_version_id,
    upload_id: null,
    file_status: null,
    error_code: null,
    file_name: null,
    size: null,
    sha256: null,
    detected_type: null,
    s3_key: null,
    created_at: at,
    updated_at: at,
    created_by: ctx.caller.userId,
    version: 1,
  };
}

/**
 * A file artefact: the file taken into the scan pipeline with the artefact as its owner (the scan
 * mirrors its status and the released file's s3 key into it), and the writes of its upload record
 * and session. A released file of the same uploader, name and bytes of this provider is reused (ready at once).
 */
export async function fileArtefact(
  ctx: OperationContext,
  base: ArtefactBase,
  file: IncomingFile,
  session: { id: string; s3Key?: string } | undefined,
): Promise<{ artefact: StoredArtefact; writes: WriteItem[] }> {
  const artefact = newArtefact(ctx, { ...base, name: base.name ?? file.file_name });
  const { upload, writes } = await acceptUpload({
    profile: 'provider-artefact',
    owner: keys.providerArtefact(base.provider_id, artefact.id),
    providerId: base.provider_id,
    userId: ctx.caller.userId,
    tokenId: ctx.caller.tokenId,
    authority: { scope: { kind: 'installation' }, permissions: uploaderNeeds(base.restricted) },
    file,
    ...(session ? { session } : {}),
    now: ctx.now,
  });
  const withFile: StoredArtefact = {
    ...artefact,
    upload_id: upload.id,
    file_status: upload.status,
    file_name: upload.file_name,
    size: upload.size,
    sha256: upload.sha256,
    detected_type: upload.detected_type,
    s3_key: upload.s3_key,
  };
  return { artefact: withFile, writes: [...writes, ...(session ? [consumeSessionWrite(session.id)] : [])] };
}

const MAX_BYTES = PROFILES['provider-artefact'].maxBytes;

/**
 * Seed, Limits: each file is at most 50 MiB. A session's presigned POST bounds it already on S3;
 * checked again here, where the bytes are read, so that an oversized file is refused at once (422)
 * rather than stored and failed by its scan.
 */
export function requireWithinLimit(file: IncomingFile, pointer: string): void {
  if (file.bytes.length > MAX_BYTES) {
    throw validationFailed([{ pointer, code: 'file_too_large', detail: `a provider artefact file is at most ${MAX_BYTES / 1024 / 1024} MiB` }]);
  }
}

/** A file artefact from a creation form: its file inline or from this caller's upload session of the provider. */
export async function formArtefact(ctx: OperationContext, base: ArtefactBase, body: Parameters<typeof formFile>[1]) {
  const { file, session } = await formFile(ctx, body, 'provider-artefact', { providerId: base.provider_id });
  requireWithinLimit(file, '/upload_session');
  return fileArtefact(ctx, base, file, session);
}

export const createProviderArtefactUploadSession = uploadSessionOperation({
  id: 'createProviderArtefactUploadSession',
  group: 'providers',
  path: `${PROVIDER_PATH}/artefact-upload-sessions`,
  params: ProviderParams,
  profile: 'provider-artefact',
  what: 'provider artefact (for createProviderArtefact or a release bulk upload of this provider)',
  takenBy: 'createProviderArtefact or uploadReleaseArtefacts of this provider',
  credential: ['administration'],
  permission: HIERARCHY,
  prefetch: providerPrefetch,
  target: (ctx, params) => ({ providerId: providerOf(ctx, params.provider).id }),
});
