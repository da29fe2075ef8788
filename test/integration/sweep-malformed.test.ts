import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { newUlid } from '../../lib/domain/ids.js';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { sweepStalledScans } from '../../lib/files/scan.js';
import { sweepStalledImports } from '../../lib/jobs/import-sweep.js';
import { sweepStalledRuns } from '../../lib/jobs/population.js';
import { sweepPurges } from '../../lib/jobs/provider-purge.js';
import { sweepRecalculations } from '../../lib/jobs/recalculation.js';
import { logger } from '../../lib/log.js';
import { DETECTION_SECONDS } from '../../lib/queues/recovery.js';
import { ddb, tableName } from '../../lib/store/client.js';
import { gsi1, type Key, keys } from '../../lib/store/keys.js';
import { startRunWrites } from '../../lib/store/population.js';
import { purgeMarkerItem, purgeMarkerWrite } from '../../lib/store/provider-purge.js';
import { getOne, keyString } from '../../lib/store/read.js';
import { markerKey, recalculationMarker } from '../../lib/store/recalculations.js';
import { commit } from '../../lib/store/transact.js';
import { fixtures } from '../support/api.js';
import { buildProject } from '../support/factories.js';
import { png } from '../support/files.js';
import { importStarter, startedImportRun } from '../support/providers.js';
import { useTestServices } from '../support/services.js';
import { quarantinedUpload } from '../support/uploads.js';

beforeAll(async () => {
  await useTestServices();
}, 60_000);

afterEach(() => {
  vi.restoreAllMocks();
});

/** A record the sweep cannot read: in the sweep's index partition, sorting first, without any of its fields. */
async function malformedIn(partition: string) {
  const item = { PK: `TESTBAD#${newUlid()}`, SK: 'RECORD', GSI1PK: partition, GSI1SK: '0', requeues: 'none' };
  await ddb().send(new PutCommand({ TableName: tableName(), Item: item }));
  return item;
}

interface SweepKind {
  name: string;
  what: string;
  partition: string;
  sweep: (now: Date) => Promise<unknown>;
  /** Stores a stalled record the sweep recovers; returns the key of the record the sweep moves. */
  good: () => Promise<Key>;
}

const starter = { userId: newUlid(), tokenId: newUlid() };

const KINDS: SweepKind[] = [
  {
    name: 'population runs',
    what: 'population run',
    partition: gsi1.runningPopulations,
    sweep: sweepStalledRuns,
    good: async () => {
      const project = buildProject();
      const { writes } = startRunWrites(project, undefined, { runId: newUlid(), ...starter, now: new Date() });
      await commit([writes[1]!]);
      return keys.projectPopulation(project.id);
    },
  },
  {
    name: 'import runs',
    what: 'import run',
    partition: gsi1.runningImports,
    sweep: sweepStalledImports,
    good: async () => {
      const { run } = await startedImportRun(newUlid(), await importStarter());
      return keys.artefactImport(run.provider_id, run.artefact_id);
    },
  },
  {
    name: 'scan watches',
    what: 'scan watch',
    partition: gsi1.pendingScans,
    sweep: sweepStalledScans,
    good: async () => {
      const { upload } = await quarantinedUpload(await fixtures.operator(), png(8, 8));
      return keys.uploadScan(upload.id);
    },
  },
  {
    name: 'recalculation markers',
    what: 'recalculation marker',
    partition: gsi1.pendingRecalculations,
    sweep: sweepRecalculations,
    good: async () => {
      const organisationId = newUlid();
      const subject = { project_id: newUlid() };
      const authority = { scope: { kind: 'organisation' as const, id: organisationId }, permissions: [] };
      await commit([recalculationMarker({ subject, organisationId, ...starter, authority, now: new Date() })]);
      return markerKey(subject);
    },
  },
  {
    name: 'purge markers',
    what: 'purge marker',
    partition: gsi1.pendingPurges,
    sweep: sweepPurges,
    good: async () => {
      const subject = { provider_id: newUlid() };
      const now = new Date();
      await commit([purgeMarkerWrite(subject, starter.userId, now)]);
      const { PK, SK } = purgeMarkerItem(subject, starter.userId, now);
      return { PK, SK };
    },
  },
];

describe('a sweep that finds a malformed record', () => {
  it.each(KINDS)('of $name recovers the good one beside it and logs the malformed one by its key, leaving it as it is', async (kind) => {
    const good = await kind.good();
    const bad = await malformedIn(kind.partition);
    const errors = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    await kind.sweep(new Date(Date.now() + DETECTION_SECONDS * 1000));
    expect(await getOne(good)).toMatchObject({ requeues: 1 });
    expect(await getOne({ PK: bad.PK, SK: bad.SK })).toEqual(bad);
    expect(errors).toHaveBeenCalledWith(`skipped a malformed ${kind.what}`, expect.objectContaining({ key: keyString(bad) }));
  });
});
