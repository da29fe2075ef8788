import { beforeAll, describe, expect, it } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { controlWorkflow } from '../../lib/config.js';
import { ddb, tableName } from '../../lib/store/client.js';
import { newControlItem, SUMMARY_PREFIX } from '../../lib/store/controls.js';
import { grantAccess, listUsers, setUserStatus } from '../../lib/store/identity.js';
import { keys } from '../../lib/store/keys.js';
import { memberCount, membersPage } from '../../lib/store/members.js';
import { MIGRATIONS, registerStep, runMigrations, type MigrationOutcome, type MigrationStep } from '../../lib/migrations/index.js';
import { getOne } from '../../lib/store/read.js';
import type { RowScope } from '../../lib/store/registers.js';
import { buildCatalogueEntry, createOrganisation, createProject, createUser } from '../support/factories.js';
import { useTestServices } from '../support/services.js';

const put = (item: Record<string, unknown>) => ddb().send(new PutCommand({ TableName: tableName(), Item: item }));

const entry = (position: number) => buildCatalogueEntry({ position, classifications: ['P'] });

/** A populated project as an installation before the status counters left it: controls, and a summary without impl_ and outcome_ counters. */
async function projectSummarisedBefore(organisationId: string): Promise<string> {
  const projectId = (await createProject({ organisation_id: organisationId })).id;
  const planned = [0, 1, 2].map((p) => ({ entry: entry(p), applicability: 'y' as const, origin: 'default_inclusion' as const, recommendation: null }));
  for (const p of planned) await put(newControlItem({ id: projectId }, p, 'run', new Date()));
  await put({
    ...keys.projectSummary(projectId),
    entity: 'project-summary',
    controls: 3,
    applicable: 3,
    not_applicable: 0,
    suggested_exclusions: 0,
    conflicts: 0,
    [`${SUMMARY_PREFIX.workflowState}${controlWorkflow().initial}`]: 3,
    revision: 0,
  });
  return projectId;
}

/** Access as grants before members were kept wrote it: the access item only, a project grant without its organisation. */
const oldAccess = (userId: string, scope: { organisation: string } | { project: string }) =>
  put({
    ...('organisation' in scope ? keys.organisationAccess(userId, scope.organisation) : keys.projectAccess(userId, scope.project)),
    entity: 'access',
    user_id: userId,
    ...('organisation' in scope ? { scope: 'organisation', organisation_id: scope.organisation } : { scope: 'project', project_id: scope.project }),
    permissions: ['view-projects'],
    granted_at: new Date().toISOString(),
  });

const members = async (organisationId: string) => (await membersPage(organisationId, { number: 1, size: 100 })).map((m) => m.id).sort();
const counted = async (organisationId: string) => memberCount(await getOne(keys.organisationCounters(organisationId)));

let organisationA: string;
let organisationB: string;
let staleProject: string;
let editedProject: string;
let oldMember: string;
let newMember: string;
let disabledUser: string;
let firstRun: MigrationOutcome[];
let unlistedUser: string;

beforeAll(async () => {
  await useTestServices();
  const creator = await createUser();
  organisationA = (await createOrganisation({ created_by: creator })).id;
  organisationB = (await createOrganisation({ created_by: creator })).id;
  staleProject = await projectSummarisedBefore(organisationA);
  editedProject = await projectSummarisedBefore(organisationA);
  await put({
    ...((await getOne(keys.projectSummary(editedProject))) ?? {}),
    [`${SUMMARY_PREFIX.implementationStatus}implemented`]: 1,
    [`${SUMMARY_PREFIX.implementationStatus}not_set`]: -1,
  });
  [oldMember, newMember, disabledUser] = [await createUser(), await createUser(), await createUser()];
  await oldAccess(oldMember, { organisation: organisationA });
  await oldAccess(oldMember, { project: (await createProject({ organisation_id: organisationB })).id });
  await grantAccess(newMember, { kind: 'organisation', id: organisationA }, ['view-projects'], new Date());
  await setUserStatus(disabledUser, 'disabled');
  await oldAccess(disabledUser, { organisation: organisationA });
  unlistedUser = await createUser();
  const { GSI1PK: _pk, GSI1SK: _sk, ...beforeTheConsole } = (await getOne(keys.user(unlistedUser)))!;
  await put(beforeTheConsole);
  firstRun = await runMigrations(new Date());
});

describe('data migrations', () => {
  it("lists users from before the console in the console's users index", async () => {
    expect((await listUsers()).map((u) => u.id)).toContain(unlistedUser);
  });

  it('applies every step on an installation that has recorded none', () => {
    expect(firstRun.map((o) => [o.name, o.status])).toEqual(MIGRATIONS.map((s) => [s.name, 'applied']));
  });

  it('recounts a project whose summary lacks the status and outcome counters', async () => {
    const summary = await getOne(keys.projectSummary(staleProject));
    expect(summary).toMatchObject({
      controls: 3,
      [`${SUMMARY_PREFIX.implementationStatus}not_set`]: 3,
      [`${SUMMARY_PREFIX.assessmentOutcome}not_assessed`]: 3,
    });
  });

  it('recounts a project whose summary an edit moved before its counters existed', async () => {
    const summary = await getOne(keys.projectSummary(editedProject));
    expect(summary).toMatchObject({ [`${SUMMARY_PREFIX.implementationStatus}not_set`]: 3, [`${SUMMARY_PREFIX.assessmentOutcome}not_assessed`]: 3 });
    expect(summary).not.toHaveProperty(`${SUMMARY_PREFIX.implementationStatus}implemented`);
  });

  it('makes users with access from before members, with exact counts', async () => {
    expect(await members(organisationA)).toEqual([oldMember, newMember].sort());
    expect(await counted(organisationA)).toBe(2);
    expect(await members(organisationB)).toEqual([oldMember]);
    expect(await counted(organisationB)).toBe(1);
  });

  it('does nothing on a second run', async () => {
    const later = await projectSummarisedBefore(organisationA);
    const outcomes = await runMigrations(new Date());
    expect(outcomes.map((o) => o.status)).toEqual(MIGRATIONS.map(() => 'already applied'));
    expect(await getOne(keys.projectSummary(later))).not.toHaveProperty(`${SUMMARY_PREFIX.implementationStatus}not_set`);
  });

  it('runs a step once however often migrations run', async () => {
    let runs = 0;
    const step: MigrationStep = { name: 'probe-once', run: async () => `run ${++runs}` };
    await runMigrations(new Date(), [step]);
    const again = await runMigrations(new Date(), [step]);
    expect(runs).toBe(1);
    expect(again).toMatchObject([{ name: 'probe-once', status: 'already applied' }]);
  });

  it('does not run a step the installation records as applied', async () => {
    await put({ ...keys.installationMarker('MIGRATION#probe-recorded'), entity: 'migration', applied_at: '2026-01-01T00:00:00.000Z' });
    let runs = 0;
    const outcomes = await runMigrations(new Date(), [{ name: 'probe-recorded', run: async () => `run ${++runs}` }]);
    expect(runs).toBe(0);
    expect(outcomes).toEqual([{ name: 'probe-recorded', status: 'already applied', at: '2026-01-01T00:00:00.000Z' }]);
  });

  it('hands a register step every register that has rows, with its owner scope', async () => {
    const seen: [RowScope, string][] = [];
    await put({ ...keys.projectCounters(staleProject), register_rows_DEF1: 2, register_rows_DEF2: 0 });
    await put({ ...keys.organisationCounters(organisationB), register_rows_DEF3: 1 });
    const step = registerStep('probe-registers', 'probed', async (scope, definitionId) => void seen.push([scope, definitionId]));
    await runMigrations(new Date(), [step]);
    expect(seen).toEqual(
      expect.arrayContaining([
        [{ owner: 'project', projectId: staleProject }, 'DEF1'],
        [{ owner: 'organisation', organisationId: organisationB }, 'DEF3'],
      ]),
    );
    expect(seen).toHaveLength(2);
  });
});
