import type * as z from 'zod';
import { once } from '../../domain/validation.js';
import { Assertion, AssertionId, assertionView, ReviewAssertion, type StoredAssertion } from '../../domain/assertions.js';
import { notFound, preconditionFailed } from '../../errors.js';
import { assertionWrites, toAssertion } from '../../store/assertions.js';
import { versionIs } from '../../store/conditions.js';
import { releaseIsDraft } from '../../store/guards.js';
import { keys } from '../../store/keys.js';
import { toRelease } from '../../store/providers.js';
import { getOne } from '../../store/read.js';
import { NoQuery } from '../kernel/common.js';
import { etagFor, requireIfMatch } from '../kernel/etag.js';
import type { OperationContext } from '../kernel/operation.js';
import { operation } from './declare.js';
import { PROVIDER_PATH, ProviderParams, providerOf, releasePublished, requireDraft } from './access.js';

/** Seed: assertion review needs publish-provider-assurance-packages (which needs manage-org-hierarchy). */
export const PUBLISHER = { administration: [['publish-provider-assurance-packages' as const, 'manage-org-hierarchy' as const]] };
const ASSERTION_PATH = `${PROVIDER_PATH}/assertions/{assertion}`;
const AssertionParams = once(() => ProviderParams().extend({ assertion: AssertionId() }));
type AssertionParams = z.output<ReturnType<typeof AssertionParams>>;

/** A row's ETag names its status beside its version: the list's row etags are these. */
const ASSERTION_KIND = 'provider-assertion';
export const assertionEtag = (a: StoredAssertion) => etagFor(ASSERTION_KIND, a.id, a.version, a.status);

// An id from before assertions had ULIDs names no item (their keys held `<release>#<control>`): 404.
const prefetch = (p: AssertionParams) => [keys.externalProvider(p.provider), keys.assertion(p.provider, p.assertion)];

/** The assertion, and its release read by key after it (404 once the release is deleted, before the purge removes the assertion). */
async function assertionOf(ctx: OperationContext, p: AssertionParams) {
  providerOf(ctx, p.provider);
  const item = ctx.prefetched(keys.assertion(p.provider, p.assertion));
  if (!item) throw notFound();
  const assertion = toAssertion(item);
  const release = await getOne(keys.assuranceRelease(p.provider, assertion.release_id));
  if (!release) throw notFound();
  return { assertion, release: toRelease(release) };
}

export const getAssertion = operation({
  id: 'getAssertion',
  method: 'GET',
  path: ASSERTION_PATH,
  summary: 'One assertion of an assurance release, with its row ETag: what the import read, its exactness and its review.',
  description:
    "status is pending after an import, then confirmed or rejected by review; exact is true when the row names a control of the release's ISM release, no other ISM version and no differing control text, so that confirmExactAssertions may confirm it; otherwise review_reason says why a person has to. The row ETag names the status beside the version and is the one confirmAssertion and rejectAssertion name in If-Match. Once its release is deleted the assertion is 404.",
  credential: ['administration'],
  permission: PUBLISHER,
  success: 200,
  params: AssertionParams,
  query: NoQuery,
  response: Assertion,
  etag: true,
  sideEffects: [],
  prefetch,
  handle: async (ctx, { params }) => {
    const { assertion } = await assertionOf(ctx, params);
    return { data: assertionView(assertion), etag: assertionEtag(assertion) };
  },
});

/**
 * Confirming or rejecting: If-Match the row ETag, refused (409 release_published) once the release
 * is published. The write is conditional on the assertion's version and the release still being a
 * draft, and moves the release's confirmed count and the control's index item with the status.
 */
function review(status: 'confirmed' | 'rejected') {
  const verb = status === 'confirmed' ? 'confirm' : 'reject';
  return operation({
    id: status === 'confirmed' ? 'confirmAssertion' : 'rejectAssertion',
    method: 'POST',
    path: `${ASSERTION_PATH}/${verb}`,
    summary:
      status === 'confirmed'
        ? 'Confirm one assertion (empty JSON object, If-Match the row ETag): it speaks for its release.'
        : 'Reject one assertion (empty JSON object, If-Match the row ETag): it no longer speaks for its release.',
    description: `Send an empty JSON object with If-Match the row ETag (from getAssertion or listArtefactAssertions); a stale one is 412. A published release is 409 release_published. ${
      status === 'confirmed'
        ? 'The release\u2019s confirmed count and the control\u2019s index move with the status, so the release ETag changes.'
        : 'Rejecting a confirmed assertion takes it off the release\u2019s confirmed count and the control\u2019s index.'
    } The review records who reviewed it and when.`,
    credential: ['administration'],
    permission: PUBLISHER,
    success: 200,
    params: AssertionParams,
    query: NoQuery,
    body: { schema: ReviewAssertion, mediaType: 'application/json' },
    response: Assertion,
    etag: true,
    ifMatch: true,
    errors: [409],
    sideEffects: [
      status === 'confirmed' ? 'Confirms the assertion and counts it on its release' : 'Rejects the assertion, uncounting it if it was confirmed',
      'Writes an audit record',
    ],
    prefetch,
    handle: async (ctx, { params }) => {
      const { assertion, release } = await assertionOf(ctx, params);
      requireDraft(release);
      requireIfMatch(ctx.ifMatch, etagFor(ASSERTION_KIND, assertion.id, assertion.version, assertion.status));
      const next: StoredAssertion = {
        ...assertion,
        status,
        version: assertion.version + 1,
        reviewed_by: ctx.caller.userId,
        reviewed_at: ctx.now.toISOString(),
      };
      const writes = assertionWrites(next, assertion, {
        assertion: { condition: versionIs(assertion.version), onConditionFailed: () => preconditionFailed() },
        release: { condition: releaseIsDraft(), onConditionFailed: releasePublished },
      });
      return {
        data: assertionView(next),
        etag: assertionEtag(next),
        writes,
        auditTarget: { provider: params.provider, release: release.id, assertion: assertion.id },
      };
    },
  });
}

export const confirmAssertion = review('confirmed');
export const rejectAssertion = review('rejected');

export const assertionOperations = [getAssertion, confirmAssertion, rejectAssertion];
