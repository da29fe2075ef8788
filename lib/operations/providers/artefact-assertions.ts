import * as z from 'zod';
import { Assertion, assertionView, type StoredAssertion } from '../../domain/assertions.js';
import type { StoredArtefact } from '../../domain/provider-artefacts.js';
import type { StoredRelease } from '../../domain/providers.js';
import { conflict, preconditionFailed } from '../../errors.js';
import { assertionBatchWrites, releaseAssertions } from '../../store/assertions.js';
import { versionIs } from '../../store/conditions.js';
import { itemUnchanged, releaseIsDraft } from '../../store/guards.js';
import { keys } from '../../store/keys.js';
import { touchArtefactWrite } from '../../store/provider-artefacts.js';
import { toRelease } from '../../store/providers.js';
import { getOne } from '../../store/read.js';
import { commit, type WriteItem } from '../../store/transact.js';
import { assertionEtag, PUBLISHER } from './assertions.js';
import { NoQuery, PageQuery } from '../kernel/common.js';
import type { OperationContext } from '../kernel/operation.js';
import { operation } from './declare.js';
import { releasePublished, requireDraft } from './access.js';
import { ARTEFACT_PATH, ArtefactParams, artefactEtag, artefactImportPrefetch, artefactOf, importRunOf } from './artefact-access.js';
import { requireIfMatch } from '../kernel/etag.js';
import { once } from '../../domain/validation.js';

/**
 * Assertions confirmed per transaction: each is its put and its control's index item, beside the
 * release's counts, the artefact's version and (in the last) the audit record: at most 100 items.
 */
const CONFIRM_BATCH = 45;

/** The assertions this artefact imported that are still its (a later import of another artefact takes a control over), in control order. */
async function artefactAssertions(artefact: StoredArtefact): Promise<StoredAssertion[]> {
  if (!artefact.release_id) return [];
  const all = await releaseAssertions(artefact.provider_id, artefact.release_id);
  return [...all.values()].filter((a) => a.artefact_id === artefact.id);
}

async function releaseOfArtefact(artefact: StoredArtefact): Promise<StoredRelease | undefined> {
  const item = artefact.release_id ? await getOne(keys.assuranceRelease(artefact.provider_id, artefact.release_id)) : undefined;
  return item ? toRelease(item) : undefined;
}

const ListedAssertion = once(() =>
  Assertion()
    .extend({ etag: z.string().meta({ description: 'The row ETag: If-Match of confirm and reject.' }) })
    .meta({
      id: 'ListedProviderAssertion',
    }),
);

export const listArtefactAssertions = operation({
  id: 'listArtefactAssertions',
  method: 'GET',
  path: `${ARTEFACT_PATH}/assertions`,
  summary: 'The assertions an artefact imported, by control, each with its own row etag; restricted artefacts need view-restricted-provider-artefacts.',
  description:
    'Lists the assertions this artefact imported that are still its own (a later import of another artefact of the release can take a control over), in control order. An artefact outside a release lists none. Each row carries the ETag that confirmAssertion and rejectAssertion name in If-Match.',
  credential: ['administration'],
  permission: PUBLISHER,
  success: 200,
  params: ArtefactParams,
  query: PageQuery,
  response: () => z.array(ListedAssertion()),
  paginated: true,
  sideEffects: [],
  prefetch: artefactImportPrefetch,
  handle: async (ctx, { params }) => {
    const all = await artefactAssertions(artefactOf(ctx, params));
    const start = (ctx.page.number - 1) * ctx.page.size;
    const page = all.slice(start, start + ctx.page.size);
    return { data: page.map((a) => ({ ...assertionView(a), etag: assertionEtag(a) })), total: all.length };
  },
});

const ConfirmedExact = once(() =>
  z
    .object({ artefact_id: z.string(), confirmed: z.number().int().meta({ description: 'How many pending exact assertions this call confirmed.' }) })
    .meta({ id: 'ConfirmedExactAssertions' }),
);

/** A batch of confirmations, guarded by the release being a draft and the artefact being as the client's ETag named it. */
function confirmWrites(ctx: OperationContext, artefact: StoredArtefact, batch: StoredAssertion[]): WriteItem[] {
  const pairs = batch.map((before) => ({
    before,
    after: { ...before, status: 'confirmed' as const, version: before.version + 1, reviewed_by: ctx.caller.userId, reviewed_at: ctx.now.toISOString() },
  }));
  return assertionBatchWrites(
    pairs,
    {
      provider_id: artefact.provider_id,
      id: artefact.release_id!,
      guard: { condition: releaseIsDraft(), onConditionFailed: releasePublished },
    },
    (before) => ({
      condition: versionIs(before!.version),
      onConditionFailed: () => conflict('assertions_changed', 'An assertion changed meanwhile; read the artefact again and retry.'),
    }),
  );
}

export const confirmExactAssertions = operation({
  id: 'confirmExactAssertions',
  method: 'POST',
  path: `${ARTEFACT_PATH}/assertions/confirm-exact`,
  summary: 'Confirm every pending exact assertion the artefact imported (empty JSON object, If-Match the artefact ETag).',
  description: `Confirms in transactions of ${CONFIRM_BATCH} assertions, each moving the release\u2019s confirmed count and the controls\u2019 index; a published release is 409 release_published, a running import of the artefact 409 import_running. Should a later transaction fail, the earlier ones stand and the same call with the same ETag confirms the rest.`,
  credential: ['administration'],
  permission: PUBLISHER,
  success: 200,
  params: ArtefactParams,
  query: NoQuery,
  body: { schema: () => z.strictObject({}).meta({ id: 'ConfirmExactAssertions' }), mediaType: 'application/json' },
  response: ConfirmedExact,
  etag: true,
  ifMatch: true,
  errors: [409],
  sideEffects: ['Confirms the artefact\u2019s pending exact assertions and counts them on its release', 'Writes an audit record'],
  prefetch: artefactImportPrefetch,
  handle: async (ctx, { params }) => {
    const artefact = artefactOf(ctx, params);
    const release = await releaseOfArtefact(artefact);
    if (release) requireDraft(release);
    const run = importRunOf(ctx, params);
    if (run?.status === 'running') throw conflict('import_running', 'An import of this artefact is running; confirm once it has ended.');
    requireIfMatch(ctx.ifMatch, artefactEtag(artefact, run));
    const exact = (await artefactAssertions(artefact)).filter((a) => a.exact && a.status === 'pending');
    const unchanged = itemUnchanged(keys.providerArtefact(artefact.provider_id, artefact.id), artefact.version, preconditionFailed);
    // Every batch but the last commits here; the last goes with the artefact's new version and the audit record.
    let start = 0;
    for (; exact.length - start > CONFIRM_BATCH; start += CONFIRM_BATCH) {
      await commit([...confirmWrites(ctx, artefact, exact.slice(start, start + CONFIRM_BATCH)), unchanged]);
    }
    const last = exact.slice(start);
    const at = ctx.now.toISOString();
    const next = { ...artefact, version: artefact.version + 1, updated_at: at };
    return {
      data: { artefact_id: artefact.id, confirmed: exact.length },
      etag: artefactEtag(next, run),
      auditTarget: { provider: params.provider, artefact: artefact.id, ...(release ? { release: release.id } : {}) },
      auditDetails: { confirmed: exact.length },
      writes: [...(last.length ? confirmWrites(ctx, artefact, last) : []), touchArtefactWrite(artefact, at)],
    };
  },
});

export const artefactAssertionOperations = [listArtefactAssertions, confirmExactAssertions];
