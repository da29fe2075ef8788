import * as z from 'zod';
import {
  ArtefactAnswer,
  ArtefactDetail,
  ArtefactFields,
  artefactReceipt,
  artefactView,
  canUploadRestricted,
  canViewRestricted,
  createdView,
  ProviderArtefact,
} from '../../domain/provider-artefacts.js';
import type { StoredRelease } from '../../domain/providers.js';
import { forbidden, preconditionFailed, validationFailed } from '../../errors.js';
import { runAsRead } from '../../store/imports.js';
import { keys } from '../../store/keys.js';
import { artefactsPage, createArtefactsWrites, deleteArtefactWrites } from '../../store/provider-artefacts.js';
import { artefactTotal, toRelease } from '../../store/providers.js';
import { getOne } from '../../store/read.js';
import { ismVersionOf } from './releases.js';
import { NoQuery, PageQuery } from '../kernel/common.js';
import { operation } from './declare.js';
import { ProviderParams, providerOf, providerPrefetch, releasePublished, requireDraft } from './access.js';
import { ARTEFACT_PATH, ArtefactParams, ARTEFACTS_PATH, artefactEtag, artefactImportPrefetch, artefactOf, HIERARCHY, importRunOf } from './artefact-access.js';
import { createProviderArtefactUploadSession, formArtefact, newArtefact } from './artefact-files.js';
import { artefactDetail, importArtefact, useArtefactAsCcm } from './imports.js';
import { uploadBody } from '../kernel/upload-form.js';
import { urlOf } from '../kernel/router.js';
import { requireIfMatch } from '../kernel/etag.js';

export const restrictedUploadDenied = () =>
  forbidden('permission_denied', 'Restricted artefacts are uploaded and linked with upload-restricted-provider-artefacts.');

export const listProviderArtefacts = operation({
  id: 'listProviderArtefacts',
  method: 'GET',
  path: ARTEFACTS_PATH,
  summary: 'List the artefacts of a provider, oldest first; restricted ones only with view-restricted-provider-artefacts.',
  description:
    'Links are stored (status stored); files are pending while scanned, then ready or error. Without view-restricted-provider-artefacts, restricted artefacts are left out of the page and the total.',
  credential: ['administration'],
  permission: HIERARCHY,
  success: 200,
  params: ProviderParams,
  query: PageQuery,
  response: () => z.array(ProviderArtefact()),
  paginated: true,
  sideEffects: [],
  prefetch: providerPrefetch,
  handle: async (ctx, { params }) => {
    const provider = providerOf(ctx, params.provider);
    const withRestricted = canViewRestricted(ctx.caller.permissions);
    const page = await artefactsPage(params.provider, withRestricted, ctx.page);
    return { data: page.map(artefactView), total: artefactTotal(provider, withRestricted) };
  },
});

/** The draft release of this provider an artefact joins, or 422 at release_id; a published one is 409 release_published. */
async function draftReleaseOf(providerId: string, releaseId: string): Promise<StoredRelease> {
  const item = await getOne(keys.assuranceRelease(providerId, releaseId));
  if (!item) throw validationFailed([{ pointer: '/release_id', code: 'unknown_release', detail: 'is not an assurance release of this provider' }]);
  const release = toRelease(item);
  requireDraft(release);
  return release;
}

export const createProviderArtefact = operation({
  id: 'createProviderArtefact',
  method: 'POST',
  path: ARTEFACTS_PATH,
  summary: 'Create an artefact of a provider: a link (stored only, never fetched) or a file (scanned; pending until ready or error).',
  description:
    'multipart/form-data with exactly one of url (an http or https link), file (inline, up to 4 MiB) or upload_session (up to 50 MiB, see createProviderArtefactUploadSession), and optionally name, restricted ("true"/"false"), release_id (a draft release of this provider; a published one is 409 release_published) and ism_version_id (defaults to the release\u2019s). Restricted artefacts need upload-restricted-provider-artefacts; a caller without view-restricted-provider-artefacts gets a minimal receipt (no ETag, no Location) and no later reads. Poll getProviderArtefact while a file is pending.',
  credential: ['administration'],
  permission: HIERARCHY,
  success: 201,
  params: ProviderParams,
  query: NoQuery,
  body: uploadBody('artefact file', ArtefactFields, ['url']),
  response: ArtefactAnswer,
  etag: true,
  idempotencyKey: true,
  uses: { files: true },
  sideEffects: ['Creates the artefact', 'Stores a file in quarantine and queues its scan', 'Writes an audit record'],
  prefetch: providerPrefetch,
  redact: (stored, caller) => {
    const data = stored.data as ArtefactAnswer;
    return data.restricted && !canViewRestricted(caller.permissions) ? { data: artefactReceipt(data.id) } : stored;
  },
  handle: async (ctx, { params, body }) => {
    const provider = providerOf(ctx, params.provider);
    const { file, upload_session, url, name, restricted = false, release_id, ism_version_id } = body;
    if (restricted && !canUploadRestricted(ctx.caller.permissions)) throw restrictedUploadDenied();
    const release = release_id ? await draftReleaseOf(provider.id, release_id) : undefined;
    if (ism_version_id) await ismVersionOf(ism_version_id);
    const base = {
      provider_id: provider.id,
      release_id: release?.id ?? null,
      restricted,
      ism_version_id: ism_version_id ?? release?.ism_version_id ?? null,
      name,
    };
    const { artefact, writes: fileWrites } = url
      ? { artefact: newArtefact(ctx, base, url), writes: [] }
      : await formArtefact(ctx, base, { file, upload_session });
    const data = createdView(artefact, ctx.caller.permissions);
    const visible = !('received' in data);
    return {
      data,
      ...(visible ? { etag: artefactEtag(artefact, undefined), location: urlOf(getProviderArtefact, { provider: provider.id, artefact: artefact.id }) } : {}),
      auditTarget: { provider: provider.id, artefact: artefact.id, ...(artefact.upload_id ? { upload: artefact.upload_id } : {}) },
      auditDetails: { kind: artefact.kind, restricted },
      writes: [...fileWrites, ...createArtefactsWrites(provider.id, [artefact], release ? { release, onPublished: releasePublished } : undefined)],
    };
  },
});

export const getProviderArtefact = operation({
  id: 'getProviderArtefact',
  method: 'GET',
  path: ARTEFACT_PATH,
  summary:
    'Read an artefact with its ETag, status and current import (poll it while its file is pending or an import runs); restricted ones need view-restricted-provider-artefacts.',
  description:
    'status is stored for a link; a file is pending while it is scanned, then ready (file_url set) or error. The import shows the latest importArtefact or useArtefactAsCcm run: running, then completed or failed, with the rows it could not read. The ETag moves with every change of the run, so read it again once the run has ended before confirmExactAssertions. A restricted artefact without view-restricted-provider-artefacts is 404.',
  credential: ['administration'],
  permission: HIERARCHY,
  success: 200,
  params: ArtefactParams,
  query: NoQuery,
  response: ArtefactDetail,
  etag: true,
  sideEffects: [],
  prefetch: artefactImportPrefetch,
  handle: async (ctx, { params }) => {
    const artefact = artefactOf(ctx, params);
    const run = importRunOf(ctx, params);
    return { data: artefactDetail(artefact, run), etag: artefactEtag(artefact, run) };
  },
});

export const deleteProviderArtefact = operation({
  id: 'deleteProviderArtefact',
  method: 'DELETE',
  path: ARTEFACT_PATH,
  summary: 'Delete an artefact (If-Match); one of a published release is 409 release_published. Restricted ones need view-restricted-provider-artefacts.',
  description:
    "If-Match names the artefact ETag as its latest read showed it, import run included (412 otherwise). The release's artefact count moves, so its ETag changes. A scanned file stays stored until the provider is deleted, so that an identical upload to the provider reuses it.",
  credential: ['administration'],
  permission: HIERARCHY,
  success: 200,
  params: ArtefactParams,
  query: NoQuery,
  response: () => z.object({ id: z.string(), deleted: z.literal(true) }),
  ifMatch: true,
  errors: [409],
  sideEffects: ['Deletes the artefact', 'Writes an audit record'],
  prefetch: artefactImportPrefetch,
  handle: async (ctx, { params }) => {
    const artefact = artefactOf(ctx, params);
    if (artefact.release_id) {
      const release = await getOne(keys.assuranceRelease(artefact.provider_id, artefact.release_id));
      if (release) requireDraft(toRelease(release));
    }
    const run = importRunOf(ctx, params);
    requireIfMatch(ctx.ifMatch, artefactEtag(artefact, run));
    return {
      data: { id: artefact.id, deleted: true as const },
      writes: [...deleteArtefactWrites(artefact, releasePublished, ctx.now), runAsRead(params.provider, artefact.id, run, preconditionFailed)],
      auditTarget: { provider: params.provider, artefact: artefact.id },
    };
  },
});

export const providerArtefactOperations = [
  listProviderArtefacts,
  createProviderArtefact,
  getProviderArtefact,
  deleteProviderArtefact,
  createProviderArtefactUploadSession,
  importArtefact,
  useArtefactAsCcm,
];
