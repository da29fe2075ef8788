import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { importRelease, type Release } from '../../lib/catalogue/store.js';
import { processScan } from '../../lib/files/scan.js';
import { getObject } from '../../lib/files/storage.js';
import { cancelUploadWrite } from '../../lib/files/uploads.js';
import { type ArtefactSource, importAssertions } from '../../lib/jobs/imports.js';
import { populate } from '../../lib/jobs/population.js';
import { purgeProviderData } from '../../lib/jobs/provider-purge.js';
import { recalculate } from '../../lib/jobs/recalculation.js';
import { DETECTION_SECONDS, MAX_REQUEUES } from '../../lib/queues/recovery.js';
import { sweep } from '../../lib/jobs/sweep.js';
import { releaseAssertions } from '../../lib/store/assertions.js';
import { ddb, tableName } from '../../lib/store/client.js';
import { projectApplicability } from '../../lib/store/controls.js';
import { type Key, keys } from '../../lib/store/keys.js';
import { getOne } from '../../lib/store/read.js';
import { commit } from '../../lib/store/transact.js';
import { fixtures } from '../support/api.js';
import { batchWritesAfter, batchWriteTo, diedAt, nth, transactionTouching } from '../support/aws-faults.js';
import { ismRelease } from '../support/document-model.js';
import { png } from '../support/files.js';
import { csvBytes, matrixRow, titledMatrix } from '../support/matrices.js';
import { importStarter, startedImportRun } from '../support/providers.js';
import { deletedRelease } from '../support/provider-purge.js';
import { type PopulationStarter, populationStarter, requestRecalculation, startedProject } from '../support/population.js';
import { useTestServices } from '../support/services.js';
import { quarantinedUpload } from '../support/uploads.js';
import { takeJobs } from '../support/jobs.js';

/** The clock once a dead worker's lease has run out and the next sweep tick has come. */
const afterDetection = (from = new Date()) => new Date(from.getTime() + DETECTION_SECONDS * 1000);

let ism: Release;
let starter: PopulationStarter;
let importer: { userId: string; tokenId: string };

beforeAll(async () => {
  await useTestServices();
  ism = await importRelease(ismRelease(), { sample: false }, new Date());
  starter = await populationStarter();
  importer = await importStarter();
  await takeJobs('populate');
}, 120_000);

/** A NC project (983 controls of the ISM release) with a population run started, whose job the test runs. */
async function startedPopulation() {
  const { project, runId } = await startedProject(ism, starter, 'NC');
  return { project, message: { project_id: project.id, run_id: runId } };
}

const NC_CONTROLS = 983;

/** The population is complete exactly once: every control written once, counted once, the run completed. */
async function expectPopulatedOnce(projectId: string) {
  const controls = await projectApplicability(projectId);
  expect(controls).toHaveLength(NC_CONTROLS);
  expect(new Set(controls.map((c) => c.id)).size).toBe(NC_CONTROLS);
  expect(controls.every((c) => c.version === 1)).toBe(true);
  expect(await getOne(keys.projectSummary(projectId))).toMatchObject({ controls: NC_CONTROLS, applicable: NC_CONTROLS });
  expect(await getOne(keys.projectControlIndex(projectId))).toMatchObject({ count: NC_CONTROLS });
  expect(await getOne(keys.project(projectId))).toMatchObject({ lifecycle_state: 'active', population_status: 'completed' });
}

describe('a population whose worker died', () => {
  it('mid-way reads running with its progress, is queued again once its lease has run out, and the takeover writes only what is missing', async () => {
    const { project, message } = await startedPopulation();
    // Dies at its second chunk of controls (200 each).
    await diedAt(() => populate(message, new Date()), batchWritesAfter(200));
    expect(await getOne(keys.projectPopulation(project.id))).toMatchObject({
      status: 'running',
      progress: { planned: NC_CONTROLS, existing: 0, created: 200 },
    });
    expect((await sweep(new Date())).stalled_runs).toEqual({ requeued: 0, ended: 0 });
    const later = afterDetection();
    expect((await sweep(later)).stalled_runs.requeued).toBeGreaterThanOrEqual(1);
    const queued = (await takeJobs('populate')).filter((m) => m.project_id === project.id);
    expect(queued).toEqual([message]);
    await populate(queued[0]!, later);
    await expectPopulatedOnce(project.id);
    expect(await getOne(keys.projectPopulation(project.id))).toMatchObject({
      status: 'completed',
      progress: { planned: NC_CONTROLS, existing: 0, created: NC_CONTROLS },
    });
    expect((await sweep(afterDetection(later))).stalled_runs).toEqual({ requeued: 0, ended: 0 });
  }, 60_000);

  it('after its last control and before its final write is completed once by the takeover', async () => {
    const { project, message } = await startedPopulation();
    await diedAt(() => populate(message, new Date()), transactionTouching('POPULATION'));
    const later = afterDetection();
    await sweep(later);
    const queued = (await takeJobs('populate')).filter((m) => m.project_id === project.id);
    expect(queued).toHaveLength(1);
    await populate(queued[0]!, later);
    await expectPopulatedOnce(project.id);
  }, 60_000);

  it('ends as failed (population_abandoned) once it has been queued again MAX_REQUEUES times without progress', async () => {
    const { project } = await startedPopulation();
    let at = new Date();
    for (let i = 0; i < MAX_REQUEUES; i++) {
      at = afterDetection(at);
      expect((await sweep(at)).stalled_runs.requeued).toBeGreaterThanOrEqual(1);
    }
    await takeJobs('populate');
    expect(await getOne(keys.projectPopulation(project.id))).toMatchObject({ status: 'running', requeues: MAX_REQUEUES });
    await sweep(afterDetection(at));
    expect(await getOne(keys.projectPopulation(project.id))).toMatchObject({ status: 'failed', error_code: 'population_abandoned' });
    expect(await getOne(keys.project(project.id))).toMatchObject({ population_status: 'failed' });
  }, 60_000);
});

const ROWS = 150;
const controlIds = () =>
  ismRelease()
    .entries.filter((e) => e.kind === 'control')
    .map((e) => e.id);

/** A running CCM run of a 150-row matrix (two batches), on an artefact of a new draft release. */
async function runningImport() {
  const { run } = await startedImportRun(ism.id, importer);
  const bytes = csvBytes(
    titledMatrix(
      controlIds()
        .slice(0, ROWS)
        .map((id) => matrixRow(id, 'Provider')),
    ),
  );
  const source = async (): Promise<ArtefactSource> => ({ ...run, bytes: async () => bytes });
  const message = { provider_id: run.provider_id, artefact_id: run.artefact_id, run_id: run.run_id };
  return { run, message, source };
}

async function expectImportedOnce(run: { provider_id: string; artefact_id: string; release_id: string }) {
  const assertions = await releaseAssertions(run.provider_id, run.release_id);
  expect(assertions.size).toBe(ROWS);
  expect([...assertions.values()].every((a) => a.version === 1)).toBe(true);
  expect(await getOne(keys.artefactImport(run.provider_id, run.artefact_id))).toMatchObject({ status: 'completed', progress: { rows: ROWS, written: ROWS } });
  expect(await getOne(keys.assuranceRelease(run.provider_id, run.release_id))).toMatchObject({ assertions: ROWS });
}

describe('an import whose worker died', () => {
  it('mid-way is queued again and the takeover resumes after the last committed batch', async () => {
    const { run, message, source } = await runningImport();
    await diedAt(() => importAssertions(message, source, new Date()), nth(2, transactionTouching(keys.artefactImport(run.provider_id, run.artefact_id).SK)));
    expect(await getOne(keys.artefactImport(run.provider_id, run.artefact_id))).toMatchObject({ status: 'running', progress: { written: 98 } });
    const later = afterDetection();
    await sweep(later);
    const queued = (await takeJobs('import')).filter((m) => m.run_id === run.run_id);
    expect(queued).toEqual([message]);
    await importAssertions(message, source, later);
    await expectImportedOnce(run);
  });

  it('after its last batch and before its final write is completed once by the takeover', async () => {
    const { run, message, source } = await runningImport();
    const runKey = keys.artefactImport(run.provider_id, run.artefact_id);
    // The run's final write, which sets it completed.
    await diedAt(
      () => importAssertions(message, source, new Date()),
      ({ command, input }) =>
        command === 'UpdateItem' && input.Key.SK === runKey.SK && Object.values(input.ExpressionAttributeValues ?? {}).includes('completed'),
    );
    const later = afterDetection();
    await sweep(later);
    expect((await takeJobs('import')).filter((m) => m.run_id === run.run_id)).toHaveLength(1);
    await importAssertions(message, source, later);
    await expectImportedOnce(run);
  });
});

let op: Awaited<ReturnType<typeof fixtures.operator>> | undefined;
let width = 30;

/** An upload in quarantine whose owner shows it, each of other bytes so that none reuses an earlier release; the crash lost its scan's message. */
async function quarantined() {
  op ??= await fixtures.operator();
  const quarantine = await quarantinedUpload(op, png(++width, 31));
  await takeJobs('scan');
  return quarantine;
}

async function expectReleasedOnce(uploadId: string, owner: { PK: string; SK: string }) {
  expect(await getOne(keys.upload(uploadId))).toMatchObject({ status: 'ready', s3_key: `files/${uploadId}` });
  expect(await getObject(`files/${uploadId}`)).toBeDefined();
  expect(await getObject(`quarantine/${uploadId}`)).toBeUndefined();
  expect(await getOne(owner)).toMatchObject({ file_status: 'ready', version: 2 });
  expect(await getOne(keys.uploadScan(uploadId))).toBeUndefined();
}

describe('a scan whose worker died', () => {
  it('mid-way leaves the upload pending until the sweep queues its scan again, which releases it', async () => {
    const { upload, owner } = await quarantined();
    await diedAt(
      () => processScan(upload.id, new Date()),
      ({ service, command, input }) => service === 's3' && command === 'GetObject' && input.Key === `quarantine/${upload.id}`,
    );
    const later = afterDetection();
    expect((await sweep(later)).stalled_scans.requeued).toBeGreaterThanOrEqual(1);
    const queued = (await takeJobs('scan')).filter((m) => m.upload_id === upload.id);
    expect(queued).toEqual([{ upload_id: upload.id }]);
    await processScan(upload.id, later);
    await expectReleasedOnce(upload.id, owner);
  });

  it('after the copy and before its final write is released once by the scan queued again', async () => {
    const { upload, owner } = await quarantined();
    await diedAt(() => processScan(upload.id, new Date()), transactionTouching('UPLOAD'));
    const later = afterDetection();
    await sweep(later);
    expect((await takeJobs('scan')).filter((m) => m.upload_id === upload.id)).toHaveLength(1);
    await processScan(upload.id, later);
    await expectReleasedOnce(upload.id, owner);
  });

  it('ends as error (scan_failed) once queued again MAX_REQUEUES times, so that its owner shows a final status', async () => {
    const { upload, owner } = await quarantined();
    let at = new Date();
    for (let i = 0; i <= MAX_REQUEUES; i++) {
      at = afterDetection(at);
      await sweep(at);
    }
    expect(await getOne(keys.upload(upload.id))).toMatchObject({ status: 'error', error_code: 'scan_failed' });
    expect(await getOne(owner)).toMatchObject({ file_status: 'error', error_code: 'scan_failed' });
    expect(await getOne(keys.uploadScan(upload.id))).toBeUndefined();
    expect((await takeJobs('scan')).filter((m) => m.upload_id === upload.id)).toHaveLength(MAX_REQUEUES);
  });

  it('leaves an upload cancelled meanwhile as it is, and drops its watch', async () => {
    const { upload } = await quarantined();
    await commit([cancelUploadWrite(upload.id, new Date(), () => new Error('settled'))]);
    await sweep(afterDetection());
    expect(await getOne(keys.uploadScan(upload.id))).toBeUndefined();
    expect(await getOne(keys.upload(upload.id))).toMatchObject({ status: 'error', error_code: 'cancelled' });
    expect((await takeJobs('scan')).filter((m) => m.upload_id === upload.id)).toEqual([]);
  });
});

/** A populated project three of whose controls were lost, and a pending recalculation marker for it. */
async function pendingRecalculation() {
  const { project, message } = await startedPopulation();
  await populate(message, new Date());
  const populated = await projectApplicability(project.id);
  for (const c of [populated[0]!, populated[500]!, populated.at(-1)!])
    await ddb().send(new DeleteCommand({ TableName: tableName(), Key: keys.control(project.id, c.id) }));
  await requestRecalculation(project.id, starter, new Date());
  return project;
}

async function expectRecalculatedOnce(projectId: string) {
  const controls = await projectApplicability(projectId);
  expect(controls).toHaveLength(NC_CONTROLS);
  expect(await getOne(keys.projectSummary(projectId))).toMatchObject({ controls: NC_CONTROLS, applicable: NC_CONTROLS });
  expect(await getOne(keys.projectControlIndex(projectId))).toMatchObject({ count: NC_CONTROLS });
  expect(await getOne(keys.projectRecalculation(projectId))).toBeUndefined();
}

describe('a recalculation whose worker died', () => {
  it('mid-way is queued again once the marker\u2019s lease has run out, and the next pass completes it', async () => {
    const project = await pendingRecalculation();
    // Dies at writing the lost controls again.
    await diedAt(() => recalculate({ project_id: project.id }, new Date()), batchWriteTo(keys.project(project.id).PK));
    expect((await sweep(new Date())).requeued_recalculations).toBe(0);
    const later = afterDetection();
    await sweep(later);
    const queued = (await takeJobs('recalculate')).filter((m) => m.project_id === project.id);
    expect(queued).toEqual([{ project_id: project.id }]);
    await recalculate(queued[0]!, later);
    await expectRecalculatedOnce(project.id);
  }, 60_000);

  it('after its controls and before its recount and marker is completed by the next pass', async () => {
    const project = await pendingRecalculation();
    // The recount's first read, of the project's summary.
    const summary = keys.projectSummary(project.id);
    await diedAt(
      () => recalculate({ project_id: project.id }, new Date()),
      ({ command, input }) =>
        command === 'BatchGetItem' &&
        (Object.values(input.RequestItems) as { Keys: Key[] }[]).some((r) => r.Keys.some((k) => k.PK === summary.PK && k.SK === summary.SK)),
    );
    const later = afterDetection();
    await sweep(later);
    expect((await takeJobs('recalculate')).filter((m) => m.project_id === project.id)).toHaveLength(1);
    await recalculate({ project_id: project.id }, later);
    await expectRecalculatedOnce(project.id);
  }, 60_000);
});

describe('a purge whose worker died', () => {
  it('mid-way is queued again once the marker\u2019s lease has run out, and the next delivery deletes the rest', async () => {
    const { message, left } = await deletedRelease(60, 30);
    // Dies at deleting the release's own items, after their index items.
    const partition = keys.externalProvider(message.provider_id).PK;
    await diedAt(() => purgeProviderData(message), batchWriteTo(partition));
    const later = afterDetection();
    expect((await sweep(later)).requeued_purges).toBeGreaterThanOrEqual(1);
    const queued = (await takeJobs('purge')).filter((m) => m.release_id === message.release_id);
    expect(queued).toEqual([message]);
    await purgeProviderData(queued[0]!);
    expect(await left()).toEqual({ partition: 0, index: 0 });
  });

  it('after its deletes and before removing its marker is finished by the next delivery', async () => {
    const { message, left } = await deletedRelease(60, 30);
    const marker = keys.providerPurge(message.provider_id, message.release_id);
    await diedAt(
      () => purgeProviderData(message),
      ({ command, input }) => command === 'DeleteItem' && input.Key.PK === marker.PK && input.Key.SK === marker.SK,
    );
    expect(await left()).toEqual({ partition: 1, index: 0 });
    await sweep(afterDetection());
    expect((await takeJobs('purge')).filter((m) => m.release_id === message.release_id)).toHaveLength(1);
    await purgeProviderData(message);
    expect(await left()).toEqual({ partition: 0, index: 0 });
  });
});
