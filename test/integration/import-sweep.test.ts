import { beforeAll, describe, expect, it, vi } from 'vitest';
import { importRelease, type Release } from '../../lib/catalogue/store.js';
import { IMPORT_ABANDONED_AFTER_MS } from '../../lib/jobs/import-sweep.js';
import { type ArtefactSource, importAssertions } from '../../lib/jobs/imports.js';
import { sweep } from '../../lib/jobs/sweep.js';
import { releaseAssertions } from '../../lib/store/assertions.js';
import { importRun, runningImportsStartedBefore, takeImportLease } from '../../lib/store/imports.js';
import { keys } from '../../lib/store/keys.js';
import { getOne } from '../../lib/store/read.js';
import { ismRelease } from '../support/document-model.js';
import { csvBytes, matrixRow, titledMatrix } from '../support/matrices.js';
import { importStarter, startedImportRun } from '../support/providers.js';
import { useTestServices } from '../support/services.js';

vi.mock('../../lib/store/imports.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../lib/store/imports.js')>();
  return { ...original, runningImportsStartedBefore: vi.fn(original.runningImportsStartedBefore) };
});

let ism: Release;
let starter: { userId: string; tokenId: string };

beforeAll(async () => {
  await useTestServices();
  ism = await importRelease(ismRelease(), { sample: false }, new Date());
  starter = await importStarter();
}, 120_000);

const MINUTE = 60_000;
const firstControl = () => ismRelease().entries.find((e) => e.kind === 'control')!.id;

/** A running CCM run of a one-row matrix, started at `startedAt` on an artefact of a new draft release; nothing has delivered it yet. */
async function runningImport(startedAt: Date) {
  const { run } = await startedImportRun(ism.id, starter, { at: startedAt });
  const bytes = csvBytes(titledMatrix([matrixRow(firstControl(), 'Provider')]));
  const source = async (): Promise<ArtefactSource> => ({ ...run, bytes: async () => bytes });
  const message = { provider_id: run.provider_id, artefact_id: run.artefact_id, run_id: run.run_id };
  return { run, message, source };
}

const stored = (run: { provider_id: string; artefact_id: string }) => getOne(keys.artefactImport(run.provider_id, run.artefact_id));

/* Each test sweeps through the sweep's entry point, so that the command recording grants the sweep function what it reads and writes. */

describe('the sweep of abandoned import runs', () => {
  it('ends a run nothing has worked on for the import queue\u2019s whole redrive window as failed (import_abandoned), out of the running index', async () => {
    const started = new Date(Date.now() - IMPORT_ABANDONED_AFTER_MS - 5 * MINUTE);
    const { run } = await runningImport(started);
    const now = new Date();
    expect((await sweep(now)).abandoned_imports).toBeGreaterThanOrEqual(1);
    expect(await importRun(run.provider_id, run.artefact_id)).toMatchObject({
      run_id: run.run_id,
      status: 'failed',
      error_code: 'import_abandoned',
      finished_at: now.toISOString(),
    });
    expect(await stored(run)).not.toHaveProperty('GSI1PK');
  });

  it('leaves a run alone that started within the redrive window', async () => {
    const { run } = await runningImport(new Date(Date.now() - IMPORT_ABANDONED_AFTER_MS + 5 * MINUTE));
    await sweep(new Date());
    expect(await importRun(run.provider_id, run.artefact_id)).toMatchObject({ status: 'running', error_code: null });
  });

  it('leaves a run alone whose lease a delivery took within the redrive window, however long ago it started', async () => {
    const started = new Date(Date.now() - 2 * IMPORT_ABANDONED_AFTER_MS);
    const { run } = await runningImport(started);
    const leasedAt = new Date(Date.now() - IMPORT_ABANDONED_AFTER_MS + 5 * MINUTE);
    await takeImportLease(run, new Date(leasedAt.getTime() + 200_000), leasedAt);
    await sweep(new Date());
    expect(await importRun(run.provider_id, run.artefact_id)).toMatchObject({ status: 'running' });
  });

  it('keeps a run whose lease a delivery took after the sweep read the index', async () => {
    const { run } = await runningImport(new Date(Date.now() - 2 * IMPORT_ABANDONED_AFTER_MS));
    const read = vi.mocked(runningImportsStartedBefore).getMockImplementation()!;
    vi.mocked(runningImportsStartedBefore).mockImplementationOnce(async (before) => {
      const seen = await read(before);
      await takeImportLease(run, new Date(Date.now() + 200_000), new Date());
      return seen;
    });
    await sweep(new Date());
    expect(await importRun(run.provider_id, run.artefact_id)).toMatchObject({ status: 'running' });
  });

  it('makes a late delivery of the run it ended do nothing', async () => {
    const { run, message, source } = await runningImport(new Date(Date.now() - IMPORT_ABANDONED_AFTER_MS - 5 * MINUTE));
    await sweep(new Date());
    const ended = await stored(run);
    await importAssertions(message, source, new Date());
    expect(await stored(run)).toEqual(ended);
    expect((await releaseAssertions(run.provider_id, run.release_id)).size).toBe(0);
  });

  it('keeps a run that ended by itself out of the running index', async () => {
    const { run, message, source } = await runningImport(new Date());
    expect(await stored(run)).toHaveProperty('GSI1PK');
    await importAssertions(message, source, new Date());
    expect(await stored(run)).toMatchObject({ status: 'completed' });
    expect(await stored(run)).not.toHaveProperty('GSI1PK');
  });
});
