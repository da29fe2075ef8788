import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { resetDdbClient, tableName } from '../../../lib/store/client.js';
import { itemAbsent, versionIs } from '../../../lib/store/conditions.js';
import { gsi1, keys } from '../../../lib/store/keys.js';
import { asPopulationRun, runningPopulations, startRunWrites, type PopulationRun } from '../../../lib/store/population.js';
import { projectItem } from '../../../lib/store/projects.js';
import { buildProject } from '../../support/factories.js';

const now = new Date('2026-11-22T10:00:00.000Z');
const run = { runId: 'RUN2', userId: 'U', tokenId: 'T', now };
const project = buildProject({ version: 4 });
const earlier: PopulationRun = {
  run_id: 'RUN1',
  status: 'completed',
  started_at: '2026-11-01T00:00:00.000Z',
  started_by: 'U0',
  token_id: 'T0',
  finished_at: '2026-11-01T00:05:00.000Z',
  error_code: null,
  progress: { planned: 10, existing: 0, created: 10 },
  previous_runs: [{ run_id: 'RUN0', status: 'failed', started_at: '2026-10-01T00:00:00.000Z', finished_at: null, error_code: 'timeout' }],
  version: 3,
};

describe('a stored population run', () => {
  const stored = { ...keys.projectPopulation(project.id), entity: 'population-run', lease_owner: 'L', ...earlier };

  it('reads the record with the bookkeeping it does not name', () => {
    expect(asPopulationRun(stored)).toEqual({ lease_owner: 'L', ...earlier });
  });

  it('reads what a run has not written yet as null or empty', () => {
    const { finished_at: _f, error_code: _e, progress: _p, previous_runs: _r, ...started } = stored;
    expect(asPopulationRun(started)).toMatchObject({ finished_at: null, error_code: null, progress: null, previous_runs: [] });
  });

  it('refuses a record whose status is not a run status, naming its key', () => {
    expect(() => asPopulationRun({ ...stored, status: 'paused' })).toThrow(keys.projectPopulation(project.id).PK);
  });
});

describe('runningPopulations', () => {
  const ddb = mockClient(DynamoDBDocumentClient);
  beforeEach(() => {
    ddb.reset();
    resetDdbClient();
  });

  it('reads the running runs from the index, each with the project of its partition', async () => {
    const running = { ...earlier, status: 'running' as const, finished_at: null, lease_until: '2026-11-22T10:02:00.000Z' };
    ddb.on(QueryCommand).resolves({ Items: [{ ...keys.projectPopulation(project.id), GSI1PK: gsi1.runningPopulations, GSI1SK: 'x', ...running }] });
    expect(await runningPopulations()).toEqual([{ projectId: project.id, run: running }]);
    expect(ddb.commandCalls(QueryCommand).map((c) => c.args[0].input)).toEqual([
      {
        TableName: tableName(),
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :pk',
        ExpressionAttributeValues: { ':pk': gsi1.runningPopulations },
        ExclusiveStartKey: undefined,
      },
    ]);
  });
});

describe('startRunWrites', () => {
  it('moves the project to Initialising with the run as its current one, at the next version', () => {
    expect(startRunWrites(project, earlier, run).next).toEqual({
      ...project,
      lifecycle_state: 'initialising',
      population_run_id: 'RUN2',
      population_status: 'running',
      updated_at: now.toISOString(),
      version: 5,
    });
  });

  it('starts the run in the population record, listed among the running populations', () => {
    const { run: record } = startRunWrites(project, undefined, run);
    expect(record).toEqual({
      ...keys.projectPopulation(project.id),
      entity: 'population-run',
      run_id: 'RUN2',
      status: 'running',
      started_at: now.toISOString(),
      started_by: 'U',
      token_id: 'T',
      finished_at: null,
      error_code: null,
      progress: null,
      previous_runs: [],
      GSI1PK: gsi1.runningPopulations,
      GSI1SK: `${now.toISOString()}#${project.id}`,
    });
  });

  it('keeps the run before it first among the earlier runs', () => {
    expect(startRunWrites(project, earlier, run).run.previous_runs).toEqual([
      { run_id: 'RUN1', status: 'completed', started_at: '2026-11-01T00:00:00.000Z', finished_at: '2026-11-01T00:05:00.000Z', error_code: null },
      ...earlier.previous_runs,
    ]);
  });

  it('keeps the twenty latest earlier runs', () => {
    const old = earlier.previous_runs[0]!;
    const many = { ...earlier, previous_runs: Array.from({ length: 20 }, (_, i) => ({ ...old, run_id: `OLD${i}` })) };
    const kept = startRunWrites(project, many, run).run.previous_runs;
    expect([kept.length, kept[0]?.run_id, kept.at(-1)?.run_id]).toEqual([20, 'RUN1', 'OLD18']);
  });

  it('writes both on condition of the versions read: the project at its version, a first record only where none is', () => {
    const { next, run: record, writes } = startRunWrites(project, undefined, run);
    expect(writes.map((w) => [w.kind, w.kind === 'put' && w.item, w.condition])).toEqual([
      ['put', projectItem(next), versionIs(4)],
      ['put', { ...record, version: 1 }, itemAbsent()],
    ]);
  });

  it('writes the record on condition of the version of the one read', () => {
    const [, write] = startRunWrites(project, earlier, run).writes;
    expect(write?.condition).toEqual(versionIs(3));
  });
});
