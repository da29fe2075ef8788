import { beforeAll, describe, expect, it } from 'vitest';
import { ulid } from 'ulid';
import { indexRunningImports, markDeletedProviderData, reviseImportRuns } from '../../lib/admin/migrations.js';
import { putAll } from '../../lib/store/batch.js';
import { keys } from '../../lib/store/keys.js';
import { getOne } from '../../lib/store/read.js';
import { storedAssertion, storedProvider, storedRelease, unrelatedImportRun } from '../support/providers.js';
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
    { ...keys.assertion(providerId, releaseId, 'ism-0001'), entity: 'assertion', provider_id: providerId, release_id: releaseId, control_id: 'ism-0001' },
  ]);
}

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
    const deletedRelease = ulid();
    await orphanAssertion(provider.id, deletedRelease);
    const deletedProvider = ulid();
    await orphanAssertion(deletedProvider, ulid());
    await markDeletedProviderData(new Date());
    expect(await getOne(keys.providerPurge(provider.id, deletedRelease))).toMatchObject({ GSI1PK: 'PURGE_PENDING', release_id: deletedRelease });
    expect(await getOne(keys.providerPurge(deletedProvider))).toMatchObject({ GSI1PK: 'PURGE_PENDING', release_id: null });
    expect(await getOne(keys.providerPurge(provider.id, kept.id))).toBeUndefined();
    expect(await getOne(keys.providerPurge(provider.id))).toBeUndefined();
  });
});
