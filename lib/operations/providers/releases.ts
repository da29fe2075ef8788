import * as z from 'zod';
import { newUlid } from '../../domain/ids.js';
import {
  AssuranceRelease,
  CreateAssuranceRelease,
  ismVersionLocked,
  newRelease,
  publicationErrors,
  publishedRelease,
  PublishAssuranceRelease,
  RELEASE_LIMIT,
  releaseDateErrors,
  releaseView,
  UpdateAssuranceRelease,
  type StoredRelease,
} from '../../domain/providers.js';
import { conflict, validationFailed } from '../../errors.js';
import { purgeMarkerWrite } from '../../store/provider-purge.js';
import { createReleaseWrites, deleteReleaseWrites, publishReleaseWrites, releasesPage, updateReleaseWrite } from '../../store/providers.js';
import { getRelease } from '../../store/catalogue-releases.js';
import { NoQuery, PageQuery } from '../kernel/common.js';
import { operation } from './declare.js';
import { urlOf } from '../kernel/router.js';
import {
  ProviderParams,
  providerOf,
  providerPrefetch,
  ReleaseParams,
  releaseEtag,
  releaseOf,
  releasePrefetch,
  releasePublished,
  RELEASE_PATH,
  RELEASES_PATH,
  requireDraft,
} from './access.js';
import { requireIfMatch } from '../kernel/etag.js';

const HIERARCHY = { administration: [['manage-org-hierarchy' as const]] };
/** Seed: release configuration needs publish-provider-assurance-packages (which needs manage-org-hierarchy). */
const PUBLISHER = { administration: [['publish-provider-assurance-packages' as const, 'manage-org-hierarchy' as const]] };

/** The version label of a complete imported ISM release, or 422 at ism_version_id. */
export async function ismVersionOf(ismVersionId: string): Promise<string> {
  const release = await getRelease(ismVersionId);
  if (release?.status !== 'complete') {
    throw validationFailed([{ pointer: '/ism_version_id', code: 'unknown_ism_release', detail: 'is not an imported ISM release (setup options list them)' }]);
  }
  return release.version;
}

const releaseLimitReached = () =>
  validationFailed(
    [{ pointer: '', code: 'release_limit_reached', detail: `a provider holds at most ${RELEASE_LIMIT} assurance releases` }],
    'The provider has no room for another release.',
  );

export const listAssuranceReleases = operation({
  id: 'listAssuranceReleases',
  method: 'GET',
  path: RELEASES_PATH,
  summary: 'List the assurance releases of a provider, drafts and published, oldest first.',
  description:
    "Every release shows its status (draft or published) and its counts of artefacts, assertions and confirmed assertions. The total is the provider's release count.",
  credential: ['administration'],
  permission: HIERARCHY,
  success: 200,
  params: ProviderParams,
  query: PageQuery,
  response: () => z.array(AssuranceRelease()),
  paginated: true,
  sideEffects: [],
  prefetch: providerPrefetch,
  handle: async (ctx, { params }) => {
    const provider = providerOf(ctx, params.provider);
    const page = await releasesPage(provider.id, ctx.page);
    return { data: page.map(releaseView), total: provider.release_count };
  },
});

export const createAssuranceRelease = operation({
  id: 'createAssuranceRelease',
  method: 'POST',
  path: RELEASES_PATH,
  summary: 'Create a draft assurance release of a provider, assessed against an imported ISM release.',
  description:
    'ism_version_id must name an imported ISM release (422 unknown_ism_release; getSetupOptions lists them), and valid_until must not fall before assessed_on (422 valid_until_before_assessed_on). A provider holds at most 50 releases (422 release_limit_reached). Needs publish-provider-assurance-packages with manage-org-hierarchy.',
  credential: ['administration'],
  permission: PUBLISHER,
  success: 201,
  params: ProviderParams,
  query: NoQuery,
  body: { schema: CreateAssuranceRelease, mediaType: 'application/json' },
  response: AssuranceRelease,
  etag: true,
  idempotencyKey: true,
  sideEffects: ['Creates a draft release', 'Writes an audit record'],
  prefetch: providerPrefetch,
  handle: async (ctx, { params, body }) => {
    const provider = providerOf(ctx, params.provider);
    const release = newRelease(body, { id: newUlid(ctx.now.getTime()), providerId: provider.id, ismVersion: '', by: ctx.caller.userId, now: ctx.now });
    const dates = releaseDateErrors(release, new Set(Object.keys(body)));
    if (dates.length) throw validationFailed(dates);
    release.ism_version = await ismVersionOf(body.ism_version_id);
    return {
      data: releaseView(release),
      etag: releaseEtag(release),
      location: urlOf(getAssuranceRelease, { provider: provider.id, package: release.id }),
      auditTarget: { provider: provider.id, release: release.id },
      writes: createReleaseWrites(release, RELEASE_LIMIT, releaseLimitReached),
    };
  },
});

export const getAssuranceRelease = operation({
  id: 'getAssuranceRelease',
  method: 'GET',
  path: RELEASE_PATH,
  summary: 'Read an assurance release with its ETag.',
  description:
    "The ETag names the release's counts beside its revision, so an import, a confirmation or an artefact change moves it: read again before an edit, a delete or publication.",
  credential: ['administration'],
  permission: HIERARCHY,
  success: 200,
  params: ReleaseParams,
  query: NoQuery,
  response: AssuranceRelease,
  etag: true,
  sideEffects: [],
  prefetch: releasePrefetch,
  handle: async (ctx, { params }) => {
    const release = releaseOf(ctx, params);
    return { data: releaseView(release), etag: releaseEtag(release) };
  },
});

const ismVersionLockedError = () =>
  conflict('ism_version_locked', 'The release holds assertions judged against its ISM release; that ISM release can no longer change.');

export const updateAssuranceRelease = operation({
  id: 'updateAssuranceRelease',
  method: 'PATCH',
  path: RELEASE_PATH,
  summary: 'Edit a draft assurance release (JSON merge patch, If-Match). Published releases are immutable (409 release_published).',
  description:
    'Omitted properties are kept and null clears a nullable one; valid_until must not fall before assessed_on (422 valid_until_before_assessed_on). ism_version_id can change only while the release holds no assertions (409 ism_version_locked) and must name an imported ISM release (422 unknown_ism_release).',
  credential: ['administration'],
  permission: PUBLISHER,
  success: 200,
  params: ReleaseParams,
  query: NoQuery,
  body: { schema: UpdateAssuranceRelease, mediaType: 'application/merge-patch+json' },
  response: AssuranceRelease,
  etag: true,
  ifMatch: true,
  errors: [409],
  sideEffects: ['Updates the draft release', 'Writes an audit record'],
  prefetch: releasePrefetch,
  handle: async (ctx, { params, body }) => {
    const current = releaseOf(ctx, params);
    requireDraft(current);
    requireIfMatch(ctx.ifMatch, releaseEtag(current));
    const fields: Record<string, unknown> = { ...body, updated_at: ctx.now.toISOString() };
    const next: StoredRelease = { ...current, ...fields, revision: current.revision + 1 };
    const dates = releaseDateErrors(next, new Set(Object.keys(body)));
    if (dates.length) throw validationFailed(dates);
    if (body.ism_version_id !== undefined && body.ism_version_id !== current.ism_version_id) {
      if (ismVersionLocked(current)) throw ismVersionLockedError();
      next.ism_version = fields.ism_version = await ismVersionOf(body.ism_version_id);
    }
    return {
      data: releaseView(next),
      etag: releaseEtag(next),
      writes: [updateReleaseWrite(current, fields, releasePublished)],
      auditTarget: { provider: params.provider, release: params.package },
      auditDetails: { changed_fields: Object.keys(body).join(',') },
    };
  },
});

export const deleteAssuranceRelease = operation({
  id: 'deleteAssuranceRelease',
  method: 'DELETE',
  path: RELEASE_PATH,
  summary:
    'Delete a draft assurance release without artefacts (If-Match; 409 release_has_artefacts otherwise). Published releases are immutable (409 release_published).',
  description:
    "Delete its artefacts first. The release's assertions are purged by a background job after the delete commits. Needs publish-provider-assurance-packages with manage-org-hierarchy.",
  credential: ['administration'],
  permission: PUBLISHER,
  success: 200,
  params: ReleaseParams,
  query: NoQuery,
  response: () => z.object({ id: z.string(), deleted: z.literal(true) }),
  ifMatch: true,
  errors: [409],
  sideEffects: ['Deletes the draft release', 'Queues the purge of its assertions', 'Writes an audit record'],
  prefetch: releasePrefetch,
  handle: async (ctx, { params }) => {
    const current = releaseOf(ctx, params);
    requireDraft(current);
    requireIfMatch(ctx.ifMatch, releaseEtag(current));
    // Checked again by the write, whose condition names the artefact count the ETag named.
    if (current.artefacts > 0) throw conflict('release_has_artefacts', 'Delete the artefacts of the release first.');
    const subject = { provider_id: current.provider_id, release_id: current.id };
    return {
      data: { id: current.id, deleted: true as const },
      writes: [...deleteReleaseWrites(current, releasePublished), purgeMarkerWrite(subject, ctx.caller.userId, ctx.now)],
      auditTarget: { provider: params.provider, release: params.package },
    };
  },
});

export const publishAssuranceRelease = operation({
  id: 'publishAssuranceRelease',
  method: 'POST',
  path: `${RELEASE_PATH}/publish`,
  summary: 'Publish a draft assurance release (empty JSON object, If-Match the current ETag): it freezes and projects may select it.',
  description:
    'Send an empty JSON object with If-Match the current ETag. A release without assessed_on is 422 release_incomplete; a published one is 409 release_published. Once published it cannot be edited, deleted or take artefacts, and getSetupOptions lists it for updateSetupProjectScope to select.',
  credential: ['administration'],
  permission: PUBLISHER,
  success: 200,
  params: ReleaseParams,
  query: NoQuery,
  body: { schema: PublishAssuranceRelease, mediaType: 'application/json' },
  response: AssuranceRelease,
  etag: true,
  ifMatch: true,
  errors: [409],
  sideEffects: ['Publishes the release, which becomes immutable and selectable by projects', 'Writes an audit record'],
  prefetch: releasePrefetch,
  handle: async (ctx, { params }) => {
    const current = releaseOf(ctx, params);
    requireDraft(current);
    requireIfMatch(ctx.ifMatch, releaseEtag(current));
    const missing = publicationErrors(current);
    if (missing.length) throw validationFailed(missing, 'The release is not ready to be published.');
    const next = publishedRelease(current, ctx.caller.userId, ctx.now);
    return {
      data: releaseView(next),
      etag: releaseEtag(next),
      writes: publishReleaseWrites(current, next, releasePublished),
      auditTarget: { provider: params.provider, release: params.package },
    };
  },
});

export const assuranceReleaseOperations = [
  listAssuranceReleases,
  createAssuranceRelease,
  getAssuranceRelease,
  updateAssuranceRelease,
  deleteAssuranceRelease,
  publishAssuranceRelease,
];
