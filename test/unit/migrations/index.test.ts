import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { BatchGetCommand, BatchWriteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  indexRunningImports,
  indexUsers,
  markDeletedProviderData,
  MIGRATIONS,
  type MigrationStep,
  recountProjectsWithoutStatusCounters,
  registerStep,
  reviseImportRuns,
  runMigrations,
} from '../../../lib/migrations/index.js';
import { resetDdbClient, tableName } from '../../../lib/store/client.js';
import { keys } from '../../../lib/store/keys.js';
import { purgeMarkerItem } from '../../../lib/store/provider-purge.js';
import type { Item } from '../../../lib/store/read.js';
import type { RowScope } from '../../../lib/store/registers.js';
import { buildProject, buildUser } from '../../support/factories.js';

const ddb = mockClient(DynamoDBDocumentClient);
const now = new Date('2026-11-27T06:00:00.000Z');

beforeEach(() => {
  ddb.reset();
  resetDdbClient();
  ddb.on(BatchGetCommand).resolves({ Responses: {} });
  ddb.on(GetCommand).resolves({});
  ddb.on(PutCommand).resolves({});
  ddb.on(UpdateCommand).resolves({});
  ddb.on(BatchWriteCommand).resolves({});
  ddb.on(ScanCommand).resolves({ Items: [] });
});
afterEach(() => {
  vi.useRealTimers();
});

const scanned = (...items: Item[]) => ddb.on(ScanCommand).resolves({ Items: items });
const scans = () => ddb.commandCalls(ScanCommand).map((c) => c.args[0].input);
const updates = () => ddb.commandCalls(UpdateCommand).map((c) => c.args[0].input);
const conditionalCheckFailed = () => Object.assign(new Error('condition'), { name: 'ConditionalCheckFailedException' });

describe('runMigrations', () => {
  const ran: string[] = [];
  const step = (name: string): MigrationStep => ({
    name,
    run: async () => {
      ran.push(name);
      return `did ${name}`;
    },
  });
  const marker = (name: string, at: string) => ({ ...keys.installationMarker(`MIGRATION#${name}`), entity: 'migration', name, applied_at: at, result: 'r' });
  beforeEach(() => {
    ran.length = 0;
  });

  it('reads the marker of every step in one strongly consistent read', async () => {
    await runMigrations(now, [step('a'), step('b')]);
    expect(ddb.commandCalls(BatchGetCommand).map((c) => c.args[0].input)).toEqual([
      {
        RequestItems: {
          [tableName()]: { Keys: [keys.installationMarker('MIGRATION#a'), keys.installationMarker('MIGRATION#b')], ConsistentRead: true },
        },
      },
    ]);
  });

  /** A clock that moves a minute at each reading, as steps that each take a while would see it. */
  const minutes = () => {
    let read = 0;
    return () => new Date(now.getTime() + ++read * 60_000);
  };

  it('runs the steps without a marker in order, and answers what each did and when it finished', async () => {
    const outcomes = await runMigrations(now, [step('a'), step('b')], minutes());
    expect([ran, outcomes]).toEqual([
      ['a', 'b'],
      [
        { name: 'a', status: 'applied', at: '2026-11-27T06:01:00.000Z', result: 'did a' },
        { name: 'b', status: 'applied', at: '2026-11-27T06:02:00.000Z', result: 'did b' },
      ],
    ]);
  });

  it('records each step it ran with the time it finished by the clock, not the instant of the run', async () => {
    await runMigrations(now, [step('a')], minutes());
    expect(ddb.commandCalls(PutCommand).map((c) => c.args[0].input)).toEqual([
      { TableName: tableName(), Item: { ...marker('a', '2026-11-27T06:01:00.000Z'), result: 'did a' } },
    ]);
  });

  it("gives each step the run's instant for what it writes", async () => {
    const given: Date[] = [];
    const stamping: MigrationStep = { name: 'stamping', run: async (at) => `at ${given.push(at)}` };
    await runMigrations(now, [stamping, { ...stamping, name: 'stamping-again' }], minutes());
    expect(given).toEqual([now, now]);
  });

  it('records completion by the wall clock when no clock is given', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-27T06:05:00.000Z'));
    expect((await runMigrations(now, [step('a')]))[0]?.at).toBe('2026-11-27T06:05:00.000Z');
  });

  it('does not run a step the installation records as applied, answering when it was', async () => {
    ddb.on(BatchGetCommand).resolves({ Responses: { [tableName()]: [marker('a', '2026-01-01T00:00:00.000Z')] } });
    const outcomes = await runMigrations(now, [step('a'), step('b')]);
    expect([ran, outcomes[0]]).toEqual([['b'], { name: 'a', status: 'already applied', at: '2026-01-01T00:00:00.000Z' }]);
  });

  it('refuses a marker without the time its step was applied, naming its key', async () => {
    const { applied_at: _at, ...broken } = marker('a', '2026-01-01T00:00:00.000Z');
    ddb.on(BatchGetCommand).resolves({ Responses: { [tableName()]: [broken] } });
    await expect(runMigrations(now, [step('a')])).rejects.toThrow('INSTALLATION');
    expect(ran).toEqual([]);
  });

  it('records nothing for a step that fails, and runs no step after it', async () => {
    const failing: MigrationStep = { name: 'broken', run: () => Promise.reject(new Error('throttled')) };
    await expect(runMigrations(now, [step('a'), failing, step('c')])).rejects.toThrow('throttled');
    expect([ran, ddb.commandCalls(PutCommand).map((c) => c.args[0].input.Item?.name)]).toEqual([['a'], ['a']]);
  });

  it('names every step differently, since the name is what the marker records', () => {
    expect(new Set(MIGRATIONS.map((s) => s.name)).size).toBe(MIGRATIONS.length);
  });
});

describe('registerStep', () => {
  const backfilled: [RowScope, string][] = [];
  const step = registerStep('register-row-order', 'backfilled the row order', async (scope, definitionId) => {
    backfilled.push([scope, definitionId]);
  });
  beforeEach(() => {
    backfilled.length = 0;
  });

  it('hands over every register with rows, with the owner scope of its counters item', async () => {
    scanned(
      { PK: 'PROJECT#P1', SK: 'COUNTERS', register_rows_risk: 3, register_rows_poam: 0 },
      { PK: 'SYSTEM#S1', SK: 'COUNTERS', register_rows_assets: 1 },
      { PK: 'ORG#O1', SK: 'COUNTERS', register_rows_contacts: 2, members: 4 },
      { PK: 'USER#U1', SK: 'COUNTERS', register_rows_x: 1 },
    );
    expect([await step.run(now), backfilled]).toEqual([
      'backfilled the row order for 3 registers',
      [
        [{ owner: 'project', projectId: 'P1' }, 'risk'],
        [{ owner: 'system', systemId: 'S1' }, 'assets'],
        [{ owner: 'organisation', organisationId: 'O1' }, 'contacts'],
      ],
    ]);
  });

  it('scans for counters items only', async () => {
    await step.run(now);
    expect(scans()).toEqual([
      {
        TableName: tableName(),
        FilterExpression: 'SK = :sk',
        ExpressionAttributeValues: { ':sk': 'COUNTERS' },
        ExclusiveStartKey: undefined,
        ConsistentRead: true,
      },
    ]);
  });
});

describe('indexRunningImports', () => {
  const run = {
    PK: 'PROVIDER#V',
    SK: 'IMPORTRUN#A',
    entity: 'import-run',
    run_id: 'R1',
    status: 'running',
    started_at: '2026-01-01T00:00:00.000Z',
    provider_id: 'V',
    artefact_id: 'A',
  };

  it('indexes a running run only while it is the same run and still running', async () => {
    scanned(run);
    await indexRunningImports();
    expect(updates()).toEqual([
      expect.objectContaining({
        Key: { PK: run.PK, SK: run.SK },
        ConditionExpression: '(#cnd0 = :cnd0) AND (#cnd1 = :cnd1)',
        ExpressionAttributeValues: expect.objectContaining({ ':cnd0': 'R1', ':cnd1': 'running' }),
      }),
    ]);
  });

  it('counts only the runs it indexed', async () => {
    scanned(run, { ...run, SK: 'IMPORTRUN#B', run_id: 'R2' });
    ddb.on(UpdateCommand, { Key: { PK: run.PK, SK: 'IMPORTRUN#B' } }).rejects(conditionalCheckFailed());
    expect(await indexRunningImports()).toBe('indexed 1 running import runs');
  });

  it('stops at a running run without the start time its index key needs, naming it, and indexes nothing for it', async () => {
    const { started_at: _at, ...unstarted } = run;
    scanned(unstarted);
    await expect(indexRunningImports()).rejects.toThrow('PROVIDER#V|IMPORTRUN#A');
    expect(updates()).toEqual([]);
  });
});

describe('reviseImportRuns', () => {
  it('gives a run its first revision unless a revision came meanwhile', async () => {
    scanned({ PK: 'PROVIDER#V', SK: 'IMPORTRUN#A', entity: 'import-run', run_id: 'R1' });
    expect(await reviseImportRuns()).toBe('gave 1 import runs a revision');
    expect(updates()).toEqual([
      {
        TableName: tableName(),
        Key: { PK: 'PROVIDER#V', SK: 'IMPORTRUN#A' },
        UpdateExpression: 'SET #set0 = :set0',
        ConditionExpression: '(#cnd0 = :cnd0) AND (attribute_not_exists(#cnd1) OR #cnd1 = :cnd1)',
        ExpressionAttributeNames: { '#set0': 'revision', '#cnd0': 'run_id', '#cnd1': 'revision' },
        ExpressionAttributeValues: { ':set0': 1, ':cnd0': 'R1', ':cnd1': 0 },
      },
    ]);
  });
});

describe('indexUsers', () => {
  it('puts each user without an index entry in the users index by email, while the user is there', async () => {
    const user = buildUser({ email: 'ann@example.org' });
    scanned({ ...keys.user(user.id), entity: 'user', ...user });
    expect(await indexUsers()).toBe('indexed 1 users for the console');
    expect(updates()).toEqual([
      {
        TableName: tableName(),
        Key: keys.user(user.id),
        UpdateExpression: 'SET #set0 = :set0, #set1 = :set1',
        ConditionExpression: 'attribute_exists(#cnd0)',
        ExpressionAttributeNames: { '#set0': 'GSI1PK', '#set1': 'GSI1SK', '#cnd0': 'PK' },
        ExpressionAttributeValues: { ':set0': 'USERS', ':set1': 'ann@example.org' },
      },
    ]);
  });
});

describe('markDeletedProviderData', () => {
  const assertion = (provider: string, release: string) => ({
    PK: `PROVIDER#${provider}`,
    SK: `A#${release}`,
    entity: 'assertion',
    provider_id: provider,
    release_id: release,
  });

  it('marks a deleted release of a provider still there, and a deleted provider whole, for purging', async () => {
    scanned(assertion('V1', 'R1'), assertion('V1', 'R2'), assertion('V2', 'R3'));
    ddb.on(BatchGetCommand).resolves({ Responses: { [tableName()]: [keys.externalProvider('V1'), keys.assuranceRelease('V1', 'R1')] } });
    expect(await markDeletedProviderData(now)).toBe('marked 2 deleted providers and releases for purging');
    expect(ddb.commandCalls(BatchWriteCommand).map((c) => c.args[0].input)).toEqual([
      {
        RequestItems: {
          [tableName()]: [
            { PutRequest: { Item: purgeMarkerItem({ provider_id: 'V1', release_id: 'R2' }, 'migration', now) } },
            { PutRequest: { Item: purgeMarkerItem({ provider_id: 'V2' }, 'migration', now) } },
          ],
        },
      },
    ]);
  });

  it('reads each provider and release once, together', async () => {
    scanned(assertion('V1', 'R1'), assertion('V1', 'R1'));
    await markDeletedProviderData(now);
    expect(ddb.commandCalls(BatchGetCommand).map((c) => c.args[0].input.RequestItems?.[tableName()]?.Keys)).toEqual([
      [keys.externalProvider('V1'), keys.assuranceRelease('V1', 'R1')],
    ]);
  });
});

describe('recountProjectsWithoutStatusCounters', () => {
  const project = buildProject();
  const summary = (over: Record<string, number>) => ({ ...keys.projectSummary(project.id), controls: 2, ...over });

  it('leaves a project whose status and outcome counters add up to its controls, reading nothing more', async () => {
    scanned(summary({ impl_implemented: 1, impl_not_set: 1, outcome_not_assessed: 2 }));
    expect(await recountProjectsWithoutStatusCounters(now)).toBe('recounted 0 project summaries without status and outcome counters');
    expect(ddb.commandCalls(GetCommand)).toEqual([]);
  });

  it('leaves a stale summary of a project still populating to the population', async () => {
    scanned(summary({ impl_implemented: 1 }));
    ddb.on(GetCommand, { Key: keys.project(project.id) }).resolves({ Item: { ...keys.project(project.id), ...project, lifecycle_state: 'populating' } });
    expect(await recountProjectsWithoutStatusCounters(now)).toBe('recounted 0 project summaries without status and outcome counters');
  });
});
