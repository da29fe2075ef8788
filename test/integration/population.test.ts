import { beforeAll, describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { readReleaseDirectory } from '../../lib/catalogue/files.js';
import { importRelease, type Release } from '../../lib/catalogue/store.js';
import type { StoredProject } from '../../lib/domain/projects.js';
import { populate } from '../../lib/jobs/population.js';
import { putAll } from '../../lib/store/batch.js';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { recalculate } from '../../lib/jobs/recalculation.js';
import { recalculationMarker } from '../../lib/store/recalculations.js';
import { ddb, tableName, traceDdb } from '../../lib/store/client.js';
import { digestKeys, filterDigestItems, readIndex } from '../../lib/store/control-filters.js';
import { controlsPage, projectApplicability } from '../../lib/store/controls.js';
import { keys, type Key } from '../../lib/store/keys.js';
import { getOne } from '../../lib/store/read.js';
import { commit } from '../../lib/store/transact.js';
import { batchWritesAfter, interceptAws } from '../support/aws-faults.js';
import { type PopulationStarter, populationStarter, startedProject as startedProjectOf, startRun as startRunOf } from '../support/population.js';
import { useTestServices } from '../support/services.js';

/** The official ISM release (tests read it from the shared data, never from a copy). */
const ISM = resolve(import.meta.dirname, '../../../shared/data/ism-2025.12.9');

let release: Release;
let starter: PopulationStarter;

beforeAll(async () => {
  await useTestServices();
  release = await importRelease(readReleaseDirectory(ISM), { sample: false }, new Date());
  starter = await populationStarter();
}, 120_000);

const startedProject = (classification: StoredProject['classification'], target: StoredProject['essential_eight_target'] = 'none') =>
  startedProjectOf(release, starter, classification, target);
const startRun = (projectId: string) => startRunOf(projectId, starter);

/**
 * A project of each classification populated once for the file, by the first test that asks: a
 * population of the official release is some thousand writes, and the tests below that only read
 * the populated project (or deliver its completed run again, which must change nothing) share it.
 */
const populatedOnce = new Map<StoredProject['classification'], Promise<{ project: StoredProject; runId: string }>>();
function populatedProject(classification: StoredProject['classification']) {
  let populated = populatedOnce.get(classification);
  if (!populated) {
    populated = startedProject(classification).then(async (started) => {
      await populate({ project_id: started.project.id, run_id: started.runId }, new Date());
      return started;
    });
    populatedOnce.set(classification, populated);
  }
  return populated;
}

describe('ISM catalogue import', () => {
  it('imports every entry of the release: 1,073 controls and 34 principles', () => {
    expect(release).toMatchObject({ version: '2025.12.9', entries: 1107, controls: 1073, principles: 34, status: 'complete', sample: false });
  });

  it('keeps the release id when the same release is imported again', async () => {
    const again = await importRelease(readReleaseDirectory(ISM), { sample: false }, new Date());
    expect(again.id).toBe(release.id);
  });

  it('refuses other content under a version already imported', async () => {
    const altered = readReleaseDirectory(ISM);
    altered.entries[0] = { ...altered.entries[0]!, statement: 'changed' };
    await expect(importRelease(altered, { sample: false }, new Date())).rejects.toThrow(/already imported with other content/);
  });
});

describe('population from the official release', () => {
  it.each([
    ['NC', 983],
    ['OS', 992],
    ['P', 992],
    ['S', 1057],
    ['TS', 1066],
  ] as const)('gives a %s project the %i entries tagged for it', async (classification, count) => {
    const { project } = await populatedProject(classification);
    const controls = await projectApplicability(project.id);
    expect(controls).toHaveLength(count);
    expect(await getOne(keys.project(project.id))).toMatchObject({ lifecycle_state: 'active', population_status: 'completed' });
    expect(await getOne(keys.projectSummary(project.id))).toMatchObject({ controls: count, applicable: count });
  });

  it('keeps the control index and each filter digest shard of the largest project within one read unit, also once every control has moved', async () => {
    const { project, runId } = await startedProject('TS');
    await populate({ project_id: project.id, run_id: runId }, new Date());
    const readUnits = async (key: Key) => (await traceDdb(() => getOne(key))).calls[0]!.rcu;
    expect(await readUnits(keys.projectControlIndex(project.id))).toBe(1);
    for (const key of digestKeys(project.id)) expect(await readUnits(key)).toBe(1);
    const worked = (await projectApplicability(project.id)).map((c) => ({
      ...c,
      workflow_state: 'ready_for_assessment',
      implementation_status: 'partially_implemented' as const,
    }));
    await putAll(filterDigestItems(project.id, worked, new Date().toISOString()));
    for (const key of digestKeys(project.id)) expect(await readUnits(key)).toBe(1);
  });

  it('carries each control’s Essential Eight tags: an ML2 target finds its 87 controls, all inside PROTECTED', async () => {
    const { project, runId } = await startedProject('P', 'ML2');
    await populate({ project_id: project.id, run_id: runId }, new Date());
    const controls = await projectApplicability(project.id);
    expect(controls).toHaveLength(992);
    const { queryAll } = await import('../../lib/store/read.js');
    const tagged = await queryAll({
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
      FilterExpression: 'contains(essential_eight, :ml)',
      ExpressionAttributeValues: { ':pk': keys.project(project.id).PK, ':sk': 'CONTROL#', ':ml': 'ML2' },
    });
    expect(tagged).toHaveLength(87);
    expect(controls.every((c) => c.applicability_origin === 'default_inclusion')).toBe(true);
  });

  it('lists controls in catalogue order by key', async () => {
    const { project } = await populatedProject('NC');
    const positions = (await projectApplicability(project.id)).map((c) => c.position);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
  });

  it('writes the control index with the counts, and a recalculation that fills missing controls recounts both', async () => {
    const { project, runId } = await startedProject('NC');
    await populate({ project_id: project.id, run_id: runId }, new Date());
    const populated = await projectApplicability(project.id);
    expect(await getOne(keys.projectControlIndex(project.id))).toMatchObject({ count: populated.length });
    // Controls lost after population (a partial restore, say): the next recalculation fills them in.
    const lost = [populated[0]!, populated[500]!, populated.at(-1)!];
    for (const c of lost) await ddb().send(new DeleteCommand({ TableName: tableName(), Key: keys.control(project.id, c.id) }));
    const now = new Date();
    await commit([
      recalculationMarker({
        subject: { project_id: project.id },
        organisationId: starter.organisationId,
        userId: starter.userId,
        tokenId: starter.tokenId,
        authority: { scope: { kind: 'organisation', id: starter.organisationId }, permissions: ['manage-projects', 'view-projects'] },
        now,
      }),
    ]);
    await recalculate({ project_id: project.id }, now);
    const after = await projectApplicability(project.id);
    expect(after.map((c) => c.id)).toEqual(populated.map((c) => c.id));
    expect(await getOne(keys.projectSummary(project.id))).toMatchObject({
      controls: after.length,
      applicable: after.length,
      state_editing: after.length,
      revision: 1,
    });
    const index = (await getOne(keys.projectControlIndex(project.id)))!;
    expect(index.count).toBe(after.length);
    const lastPage = await controlsPage(project.id, readIndex(index)!, { number: Math.ceil(after.length / 50), size: 50 });
    expect(lastPage.map((c) => c.id)).toEqual(after.slice(Math.floor((after.length - 1) / 50) * 50).map((c) => c.id));
  });

  it('does nothing when a completed run is delivered again', async () => {
    const { project, runId } = await populatedProject('OS');
    const before = await getOne(keys.project(project.id));
    await populate({ project_id: project.id, run_id: runId }, new Date());
    expect(await getOne(keys.project(project.id))).toEqual(before);
    expect(await projectApplicability(project.id)).toHaveLength(992);
  });

  it('fails a run whose worker fails halfway, and a recovery run keeps what exists and fills the rest', async () => {
    const { project, runId } = await startedProject('P');
    // The first chunk of controls (200) is written; every batch of the second fails.
    const secondChunk = batchWritesAfter(200);
    const stop = await interceptAws(async (request, send) => {
      if (secondChunk(request)) throw new Error('storage went away');
      return send();
    });
    try {
      await populate({ project_id: project.id, run_id: runId }, new Date());
    } finally {
      stop();
    }
    expect(await getOne(keys.projectPopulation(project.id))).toMatchObject({ status: 'failed', error_code: 'population_failed' });
    expect(await getOne(keys.project(project.id))).toMatchObject({ lifecycle_state: 'initialising', population_status: 'failed' });
    const partial = await projectApplicability(project.id);
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.length).toBeLessThan(992);

    const recovery = await startRun(project.id);
    await populate({ project_id: project.id, run_id: recovery }, new Date());
    const after = await projectApplicability(project.id);
    expect(after).toHaveLength(992);
    const kept = await getOne(keys.control(project.id, partial[0]!.id));
    expect(kept).toMatchObject({ population_run_id: runId, version: 1 });
    expect(await getOne(keys.projectPopulation(project.id))).toMatchObject({
      run_id: recovery,
      status: 'completed',
      progress: { planned: 992, existing: partial.length, created: 992 - partial.length },
    });
  });

  it('takes over a crashed run on redelivery once its lease has run out', async () => {
    const { project, runId } = await startedProject('NC');
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    const { ddb, tableName } = await import('../../lib/store/client.js');
    // A crashed delivery leaves its lease behind; a redelivery before it ends waits, one after it resumes.
    const lease = new Date(Date.now() + 60_000).toISOString();
    await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.projectPopulation(project.id),
        UpdateExpression: 'SET lease_until = :l',
        ExpressionAttributeValues: { ':l': lease },
      }),
    );
    await expect(populate({ project_id: project.id, run_id: runId }, new Date())).rejects.toThrow(/leased/);
    await populate({ project_id: project.id, run_id: runId }, new Date(Date.now() + 120_000));
    expect(await projectApplicability(project.id)).toHaveLength(983);
  });

  it('leaves the running-runs index when the run ends', async () => {
    const { project, runId } = await startedProject('NC');
    expect(await getOne(keys.projectPopulation(project.id))).toMatchObject({ GSI1PK: 'POPULATION_RUNNING' });
    await populate({ project_id: project.id, run_id: runId }, new Date());
    const run = await getOne(keys.projectPopulation(project.id));
    expect(run).not.toHaveProperty('GSI1PK');
    expect(run).not.toHaveProperty('GSI1SK');
  });

  it('never queues again a run whose lease a delivery has just taken, however old the run', async () => {
    const { project, runId } = await startedProject('NC');
    const { sweepStalledRuns } = await import('../../lib/jobs/population.js');
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    const { ddb, tableName } = await import('../../lib/store/client.js');
    const hourLater = new Date(Date.now() + 3_600_000);
    await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.projectPopulation(project.id),
        UpdateExpression: 'SET lease_until = :l',
        ExpressionAttributeValues: { ':l': new Date(hourLater.getTime() + 60_000).toISOString() },
      }),
    );
    await sweepStalledRuns(hourLater);
    expect(await getOne(keys.projectPopulation(project.id))).toMatchObject({ run_id: runId, status: 'running' });
    expect(await getOne(keys.projectPopulation(project.id))).not.toHaveProperty('requeues');
    await sweepStalledRuns(new Date(hourLater.getTime() + 3_600_000));
    expect(await getOne(keys.projectPopulation(project.id))).toMatchObject({ run_id: runId, status: 'running', requeues: 1 });
  });
});
