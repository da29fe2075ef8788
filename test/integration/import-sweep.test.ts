import { beforeAll, describe, expect, it } from 'vitest';
import { importRelease, type Release } from '../../lib/catalogue/store.js';
import { type ArtefactSource, importAssertions } from '../../lib/jobs/imports.js';
import { LEASE_SECONDS, MAX_REQUEUES } from '../../lib/queues/recovery.js';
import { sweep } from '../../lib/jobs/sweep.js';
import { releaseAssertions } from '../../lib/store/assertions.js';
import { importRun, takeImportLease } from '../../lib/store/imports.js';
import { gsi1, keys } from '../../lib/store/keys.js';
import { getOne } from '../../lib/store/read.js';
import { aroundNextQuery } from '../support/aws-faults.js';
import { ismRelease } from '../support/document-model.js';
import { csvBytes, matrixRow, titledMatrix } from '../support/matrices.js';
import { importStarter, startedImportRun } from '../support/providers.js';
import { useTestServices } from '../support/services.js';

let ism: Release;
let starter: { userId: string; tokenId: string };

beforeAll(async () => {
  await useTestServices();
  ism = await importRelease(ismRelease(), { sample: false }, new Date());
  starter = await importStarter();
}, 120_000);

const MINUTE = 60_000;
const LEASE = LEASE_SECONDS * 1000;
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

describe('the sweep of stalled import runs', () => {
  it('queues again a run no delivery has leased for a lease’s length, once a lease’s length', async () => {
    const { run } = await runningImport(new Date(Date.now() - LEASE - MINUTE));
    const now = new Date();
    expect((await sweep(now)).stalled_imports.requeued).toBeGreaterThanOrEqual(1);
    expect(await stored(run)).toMatchObject({ status: 'running', requeues: 1, requeued_at: now.toISOString() });
    await sweep(new Date(now.getTime() + MINUTE));
    expect(await stored(run)).toMatchObject({ requeues: 1 });
  });

  it('leaves a run alone that started within a lease’s length', async () => {
    const { run } = await runningImport(new Date(Date.now() - LEASE + MINUTE));
    await sweep(new Date());
    expect(await stored(run)).toMatchObject({ status: 'running', error_code: null });
    expect(await stored(run)).not.toHaveProperty('requeues');
  });

  it('leaves a run alone whose lease is live, however long ago it started', async () => {
    const { run } = await runningImport(new Date(Date.now() - 60 * MINUTE));
    await takeImportLease(run, new Date(Date.now() + LEASE), new Date());
    await sweep(new Date());
    expect(await stored(run)).not.toHaveProperty('requeues');
  });

  it('keeps a run whose lease a delivery took after the sweep read the index', async () => {
    const { run } = await runningImport(new Date(Date.now() - 60 * MINUTE));
    const stop = await aroundNextQuery(gsi1.runningImports, { after: () => takeImportLease(run, new Date(Date.now() + LEASE), new Date()) });
    try {
      await sweep(new Date());
    } finally {
      stop();
    }
    expect(await stored(run)).toMatchObject({ status: 'running' });
    expect(await stored(run)).not.toHaveProperty('requeues');
  });

  it('ends a run queued again MAX_REQUEUES times and still stalled as failed (import_abandoned), out of the running index', async () => {
    const { run } = await runningImport(new Date(Date.now() - LEASE - MINUTE));
    let at = new Date();
    for (let i = 0; i < MAX_REQUEUES; i++, at = new Date(at.getTime() + LEASE + MINUTE)) await sweep(at);
    expect(await stored(run)).toMatchObject({ status: 'running', requeues: MAX_REQUEUES });
    await sweep(at);
    expect(await importRun(run.provider_id, run.artefact_id)).toMatchObject({
      run_id: run.run_id,
      status: 'failed',
      error_code: 'import_abandoned',
      finished_at: at.toISOString(),
    });
    expect(await stored(run)).not.toHaveProperty('GSI1PK');
  });

  it('makes a late delivery of the run it ended do nothing', async () => {
    const { run, message, source } = await runningImport(new Date(Date.now() - LEASE - MINUTE));
    let at = new Date();
    for (let i = 0; i <= MAX_REQUEUES; i++, at = new Date(at.getTime() + LEASE + MINUTE)) await sweep(at);
    const ended = await stored(run);
    expect(ended).toMatchObject({ status: 'failed' });
    await importAssertions(message, source, at);
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
