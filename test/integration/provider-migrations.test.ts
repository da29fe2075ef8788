import { beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import { indexRunningImports, markDeletedProviderData, moveAssertionsToUlids, reviseImportRuns } from '../../lib/migrations/index.js';
import { assertionId, type StoredAssertion } from '../../lib/domain/assertions.js';
import { deleteAll, putAll } from '../../lib/store/batch.js';
import { keys } from '../../lib/store/keys.js';
import { getOne } from '../../lib/store/read.js';
import { releaseAsStored, storedAssertion, storedProvider, storedRelease, unrelatedImportRun } from '../support/providers.js';
import { useTestServices } from '../support/services.js';

beforeAll(async () => {
  await useTestServices();
});

/** An import run as written before running runs were indexed (no GSI1 keys) and before runs kept a revision. */
async function unindexedRun(status: 'running' | 'completed') {
  const run = unrelatedImportRun();
  const { revision: _, ...unrevised } = run;
  await putAll([{ ...keys.artefactImport(run.provider_id, run.artefact_id), entity: 'import-run', ...unrevised, status }]);
  return keys.artefactImport(run.provider_id, run.artefact_id);
}

/** An assertion of a release that is not stored (deleted before deletions queued their purge). */
async function orphanAssertion(providerId: string, releaseId: string) {
  await putAll([
    {
      ...keys.assertion(providerId, assertionId(releaseId, 'ism-0001')),
      entity: 'assertion',
      provider_id: providerId,
      release_id: releaseId,
      control_id: 'ism-0001',
    },
  ]);
}

/** A stored assertion as it was before assertions had ULIDs: keyed by its release and control, its id naming them. */
async function legacy(a: StoredAssertion) {
  const old = { PK: keys.assertion(a.provider_id, a.id).PK, SK: `ASSERTION#${a.release_id}#${a.control_id}` };
  await deleteAll([keys.assertion(a.provider_id, a.id)]);
  await putAll([{ ...old, entity: 'assertion', ...a, id: `${a.release_id}-${a.control_id}` }]);
  return old;
}

describe('migration assertion-ulids', () => {
  it('moves an assertion stored under its release and control to the key of its ULID, with its review', async () => {
    const release = await storedRelease((await storedProvider()).id, { status: 'draft' });
    const assertion = await storedAssertion(release, 'ism-0003', 'confirmed');
    const old = await legacy(assertion);
    await moveAssertionsToUlids(new Date());
    expect(await getOne(old)).toBeUndefined();
    expect(await getOne(keys.assertion(release.provider_id, assertion.id))).toMatchObject({ id: assertion.id, status: 'confirmed', version: 1 });
    expect(await getOne(keys.controlAssertion('ism-0003', release.provider_id, release.id))).toBeDefined();
  });

  it('drops and uncounts an assertion that an import has written again under its ULID, with its control index item', async () => {
    const release = await storedRelease((await storedProvider()).id, { status: 'draft' });
    const old = await legacy(await storedAssertion(release, 'ism-0004', 'confirmed'));
    const imported = await storedAssertion(release, 'ism-0004', 'pending');
    await moveAssertionsToUlids(new Date());
    expect(await getOne(old)).toBeUndefined();
    expect(await getOne(keys.assertion(release.provider_id, imported.id))).toMatchObject({ status: 'pending' });
    expect(await getOne(keys.controlAssertion('ism-0004', release.provider_id, release.id))).toBeUndefined();
    expect(await releaseAsStored(release.provider_id, release.id)).toMatchObject({ assertions: 1, confirmed_assertions: 0 });
  });

  it('marks for purging an assertion it moved of a release deleted before the move', async () => {
    const provider = await storedProvider();
    const deletedRelease = newUlid();
    await legacy({ ...(await storedAssertion(await storedRelease(provider.id, { status: 'draft' }), 'ism-0005')), release_id: deletedRelease });
    await moveAssertionsToUlids(new Date());
    expect(await getOne(keys.providerPurge(provider.id, deletedRelease))).toMatchObject({ GSI1PK: 'PURGE_PENDING' });
  });
});

describe('migration import-runs-running-index', () => {
  it('indexes the running import runs written before the index, and only those', async () => {
    const running = await unindexedRun('running');
    const ended = await unindexedRun('completed');
    await indexRunningImports();
    expect(await getOne(running)).toMatchObject({ GSI1PK: 'IMPORT_RUNNING' });
    expect(await getOne(ended)).not.toHaveProperty('GSI1PK');
  });
});

describe('migration import-runs-revision', () => {
  it('gives every import run without a revision its first', async () => {
    const running = await unindexedRun('running');
    const ended = await unindexedRun('completed');
    await reviseImportRuns();
    expect(await getOne(running)).toMatchObject({ revision: 1 });
    expect(await getOne(ended)).toMatchObject({ revision: 1 });
  });
});

describe('migration deleted-provider-data', () => {
  it('marks for purging a deleted release of a provider still there, a deleted provider, and nothing that still exists', async () => {
    const provider = await storedProvider();
    const kept = await storedRelease(provider.id, { status: 'draft' });
    await storedAssertion(kept, 'ism-0002', 'pending');
    const deletedRelease = newUlid();
    await orphanAssertion(provider.id, deletedRelease);
    const deletedProvider = newUlid();
    await orphanAssertion(deletedProvider, newUlid());
    await markDeletedProviderData(new Date());
    expect(await getOne(keys.providerPurge(provider.id, deletedRelease))).toMatchObject({ GSI1PK: 'PURGE_PENDING', release_id: deletedRelease });
    expect(await getOne(keys.providerPurge(deletedProvider))).toMatchObject({ GSI1PK: 'PURGE_PENDING', release_id: null });
    expect(await getOne(keys.providerPurge(provider.id, kept.id))).toBeUndefined();
    expect(await getOne(keys.providerPurge(provider.id))).toBeUndefined();
  });
});
