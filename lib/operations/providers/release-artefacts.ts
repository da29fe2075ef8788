import * as z from 'zod';
import { ArtefactAnswer, BulkUpload, BULK_UPLOAD_MAX_FILES, canUploadRestricted, createdView } from '../../domain/provider-artefacts.js';
import { ApiError, validationFailed } from '../../errors.js';
import { readSession } from '../../files/sessions.js';
import { createArtefactsWrites } from '../../store/provider-artefacts.js';
import type { WriteItem } from '../../store/transact.js';
import { NoQuery } from '../kernel/common.js';
import { operation } from './declare.js';
import { ReleaseParams, releaseOf, releasePrefetch, releasePublished, RELEASE_PATH, requireDraft, releaseEtag } from './access.js';
import { HIERARCHY } from './artefact-access.js';
import { fileArtefact, requireWithinLimit } from './artefact-files.js';
import { restrictedUploadDenied } from './artefacts.js';
import { requireIfMatch } from '../kernel/etag.js';

/**
 * Files read at once. Each is read whole to be hashed (its quarantine copy is made inside S3), so
 * three 50 MiB files fit the function's memory, and 25 of them its 28 seconds.
 */
const PARALLEL_FILES = 3;

/** The file of the i-th session, its refusal pointed at that entry. */
async function sessionFile(id: string, i: number, expect: Parameters<typeof readSession>[1]) {
  try {
    return await readSession(id, expect);
  } catch (error) {
    if (!(error instanceof ApiError) || !error.extra.errors) throw error;
    throw validationFailed(error.extra.errors.map((e) => ({ ...e, pointer: `/files/${i}/upload_session` })));
  }
}

export const uploadReleaseArtefacts = operation({
  id: 'uploadReleaseArtefacts',
  method: 'POST',
  path: `${RELEASE_PATH}/artefacts`,
  summary: `Bulk upload of 1 to ${BULK_UPLOAD_MAX_FILES} files (each at most 50 MiB, through upload sessions of this provider) as artefacts of a draft release (If-Match the release ETag).`,
  description:
    'Each file is first POSTed to an upload session (createProviderArtefactUploadSession), then named here with an optional name and restricted flag. All artefacts are created in one transaction, pending until their scans make them ready or error; the release\u2019s artefact count moves, so its ETag changes. A published release is 409 release_published. Restricted files need upload-restricted-provider-artefacts; without view-restricted-provider-artefacts their rows are minimal receipts. Poll getProviderArtefact or listProviderArtefacts for their status.',
  credential: ['administration'],
  permission: HIERARCHY,
  success: 201,
  params: ReleaseParams,
  query: NoQuery,
  body: { schema: BulkUpload, mediaType: 'application/json' },
  response: () => z.array(ArtefactAnswer()),
  ifMatch: true,
  errors: [409],
  uses: { files: true },
  sideEffects: ['Creates one artefact per file', 'Stores each file in quarantine and queues its scan', 'Writes an audit record'],
  prefetch: releasePrefetch,
  handle: async (ctx, { params, body }) => {
    const release = releaseOf(ctx, params);
    requireDraft(release);
    requireIfMatch(ctx.ifMatch, releaseEtag(release));
    if (body.files.some((f) => f.restricted) && !canUploadRestricted(ctx.caller.permissions)) throw restrictedUploadDenied();
    const scope = { providerId: release.provider_id };
    const one = async (i: number) => {
      const entry = body.files[i]!;
      const session = await sessionFile(entry.upload_session, i, { purpose: 'provider-artefact', scope, userId: ctx.caller.userId, now: ctx.now });
      requireWithinLimit(session.file, `/files/${i}/upload_session`);
      const base = {
        provider_id: release.provider_id,
        release_id: release.id,
        restricted: entry.restricted ?? false,
        ism_version_id: release.ism_version_id,
        name: entry.name,
      };
      return fileArtefact(ctx, base, session.file, { id: session.record.id, s3Key: session.record.s3_key });
    };
    const made: Awaited<ReturnType<typeof one>>[] = [];
    let next = 0;
    const reader = async () => {
      while (next < body.files.length) {
        const i = next++;
        made[i] = await one(i);
      }
    };
    await Promise.all(Array.from({ length: PARALLEL_FILES }, reader));
    const artefacts = made.map((m) => m.artefact);
    const writes: WriteItem[] = made.flatMap((m) => m.writes);
    return {
      data: artefacts.map((a) => createdView(a, ctx.caller.permissions)),
      writes: [...writes, ...createArtefactsWrites(release.provider_id, artefacts, { release, asRead: release, onPublished: releasePublished })],
      auditTarget: { provider: params.provider, release: params.package },
      auditDetails: { files: artefacts.length, restricted: artefacts.filter((a) => a.restricted).length },
    };
  },
});
