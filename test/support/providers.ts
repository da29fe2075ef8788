import { newUlid } from '../../lib/domain/ids.js';
import { issueToken } from '../../lib/auth/issue.js';
import { type ImportKind, newImportRun } from '../../lib/domain/imports/run.js';
import { permissionsOf } from '../../lib/domain/permissions.js';
import { createUser, grantAccess } from '../../lib/store/identity.js';
import type { AssertionStatus, StoredAssertion } from '../../lib/domain/assertions.js';
import { publishedRelease, type StoredProvider, type StoredRelease } from '../../lib/domain/providers.js';
import { assertionBatchWrites, assertionWrites } from '../../lib/store/assertions.js';
import { attributeEquals, itemAbsent } from '../../lib/store/conditions.js';
import { keys } from '../../lib/store/keys.js';
import { publishReleaseWrites, toRelease } from '../../lib/store/providers.js';
import { startImportWrites } from '../../lib/store/imports.js';
import { getOne } from '../../lib/store/read.js';
import { commit } from '../../lib/store/transact.js';
import { buildAssertion, createProvider, createRelease } from './factories.js';

const never = () => new Error('unexpected');

/** A provider as the create operation stores it. */
export const storedProvider = (name?: string): Promise<StoredProvider> => createProvider(name === undefined ? {} : { name });

/** A release of the provider, through the same writes as the operations: a draft, then published unless asked not to. */
export const storedRelease = (providerId: string, options: { ismVersionId?: string; status?: 'draft' | 'published' } = {}): Promise<StoredRelease> =>
  createRelease({
    provider_id: providerId,
    ...(options.ismVersionId === undefined ? {} : { ism_version_id: options.ismVersionId }),
    ...(options.status === undefined ? {} : { status: options.status }),
  });

/** An assertion of a release about an ISM control, written as the imports write it (over `before`, a review of it). */
export async function storedAssertion(
  release: Pick<StoredRelease, 'provider_id' | 'id'>,
  controlId: string,
  status: AssertionStatus = 'confirmed',
  before?: StoredAssertion,
): Promise<StoredAssertion> {
  const assertion = buildAssertion({
    provider_id: release.provider_id,
    release_id: release.id,
    control_id: controlId,
    status,
    version: (before?.version ?? 0) + 1,
  });
  await commit(assertionWrites(assertion, before));
  return assertion;
}

/** One transaction of assertions and the release's count update stays under DynamoDB's 100 items. */
const CHUNK = 45;

/**
 * A published release of a new provider that confirms each of the controls as provider-implemented,
 * with consumer guidance: what a selection turns into `ec` and guidance on every one of them.
 */
export async function publishedReleaseAsserting(
  ismReleaseId: string,
  controls: readonly string[],
  name?: string,
): Promise<{ provider_id: string; release_id: string; count: number }> {
  const provider = await storedProvider(name);
  const draft = await storedRelease(provider.id, { ismVersionId: ismReleaseId, status: 'draft' });
  const assertions = controls.map((control, i) =>
    buildAssertion({
      provider_id: provider.id,
      release_id: draft.id,
      control_id: control,
      reviewed_by: 'fixture',
      reviewed_at: new Date().toISOString(),
      row: i + 2,
      consumer_guidance: `Tenants confirm the platform's configuration for ${control} in their annual review.`,
    }),
  );
  const guard = { condition: attributeEquals('status', 'draft'), onConditionFailed: never };
  for (let i = 0; i < assertions.length; i += CHUNK) {
    const pairs = assertions.slice(i, i + CHUNK).map((after) => ({ after, before: undefined }));
    await commit(assertionBatchWrites(pairs, { provider_id: provider.id, id: draft.id, guard }, () => ({ condition: itemAbsent(), onConditionFailed: never })));
  }
  const before = await releaseAsStored(provider.id, draft.id);
  await commit(publishReleaseWrites(before, publishedRelease(before, 'fixture', new Date()), never));
  return { provider_id: provider.id, release_id: draft.id, count: assertions.length };
}

export async function releaseAsStored(providerId: string, releaseId: string): Promise<StoredRelease> {
  return toRelease((await getOne(keys.assuranceRelease(providerId, releaseId)))!);
}

/** An import run of a new artefact of a new provider, as the start operation builds it (not stored). */
export const unrelatedImportRun = () =>
  newImportRun({
    run_id: newUlid(),
    provider_id: newUlid(),
    release_id: newUlid(),
    artefact_id: newUlid(),
    ism_version_id: newUlid(),
    kind: 'ccm',
    started_by: newUlid(),
    token_id: newUlid(),
    now: new Date(),
  });

/** A user holding every Administration permission, and a token of theirs: who starts the import jobs that job-level tests run. */
export async function importStarter(): Promise<{ userId: string; tokenId: string }> {
  const user = await createUser({ email: `${newUlid().toLowerCase()}@test.invalid`, name: 'Importer', superUser: false }, new Date());
  await grantAccess(user.id, { kind: 'installation' }, permissionsOf('administration'), new Date());
  const token = await issueToken(
    user.id,
    { token_type: 'administration', name: 't', abilities: permissionsOf('administration'), read_only: false },
    new Date(),
  );
  return { userId: user.id, tokenId: token.id };
}

/**
 * A draft (or published) release of a new provider on the given ISM release, and a run started on
 * a new artefact of it by `starter`, stored as the start operation stores it.
 */
export async function startedImportRun(
  ismVersionId: string,
  starter: { userId: string; tokenId: string },
  options: { kind?: ImportKind; status?: 'draft' | 'published'; at?: Date; providerName?: string } = {},
) {
  const at = options.at ?? new Date();
  const provider = await storedProvider(options.providerName);
  const release = await storedRelease(provider.id, { ismVersionId, status: options.status ?? 'draft' });
  const run = newImportRun({
    run_id: newUlid(at.getTime()),
    provider_id: provider.id,
    release_id: release.id,
    artefact_id: newUlid(),
    ism_version_id: ismVersionId,
    kind: options.kind ?? 'ccm',
    started_by: starter.userId,
    token_id: starter.tokenId,
    now: at,
  });
  await commit([startImportWrites(run, undefined)]);
  return { provider, release, run };
}
