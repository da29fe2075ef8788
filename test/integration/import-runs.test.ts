import { beforeAll, describe, expect, it } from 'vitest';
import {
  finishImportRun,
  importRun,
  progressWrite,
  RunMovedOn,
  runAsRead,
  startImportWrites,
  takeImportLease,
  updateImportRun,
} from '../../lib/store/imports.js';
import { commit } from '../../lib/store/transact.js';
import { unrelatedImportRun } from '../support/providers.js';
import { useTestServices } from '../support/services.js';

beforeAll(async () => {
  await useTestServices();
}, 120_000);

class Moved extends Error {
  override readonly name = 'Moved';
}

/** A running run of a new artefact, as the start operation puts it. */
async function started() {
  const run = unrelatedImportRun();
  await commit([startImportWrites(run, undefined)]);
  return run;
}

const revisionOf = async (run: { provider_id: string; artefact_id: string }) => (await importRun(run.provider_id, run.artefact_id))?.revision;

describe('an import run revision', () => {
  it('stays when the lease is taken (detail does not show it)', async () => {
    const run = await started();
    await takeImportLease(run, new Date(Date.now() + 60_000), new Date());
    expect(await revisionOf(run)).toBe(1);
  });

  it('moves with each write detail shows: the parsed rows, each batch, the end', async () => {
    const run = await started();
    const seen: (number | undefined)[] = [];
    await updateImportRun(run, { progress: { rows: 1, written: 0, exact: 1 }, errors: [], error_count: 0 });
    seen.push(await revisionOf(run));
    await commit([progressWrite({ ...run, revision: 2 }, 0, { rows: 1, written: 1, exact: 1 }, new Date().toISOString())]);
    seen.push(await revisionOf(run));
    await finishImportRun({ ...run, revision: 3 }, { status: 'completed', at: new Date() });
    seen.push(await revisionOf(run));
    expect(seen).toEqual([2, 3, 4]);
  });

  it('refuses a write from a writer holding an earlier revision', async () => {
    const run = await started();
    await updateImportRun(run, { progress: { rows: 1, written: 0, exact: 1 } });
    await expect(finishImportRun(run, { status: 'failed', at: new Date() })).rejects.toBeInstanceOf(RunMovedOn);
  });

  it('checks the run as an artefact ETag named it, failing once the run has moved', async () => {
    const run = await started();
    await commit([runAsRead(run.provider_id, run.artefact_id, run, () => new Moved())]);
    await updateImportRun(run, { progress: { rows: 1, written: 0, exact: 1 } });
    await expect(commit([runAsRead(run.provider_id, run.artefact_id, run, () => new Moved())])).rejects.toBeInstanceOf(Moved);
  });
});
