import { beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import { fixtures } from '../support/api.js';
import { operatorCli, type CliResult } from '../support/cli.js';
import { getOne } from '../../lib/store/read.js';
import { keys } from '../../lib/store/keys.js';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../../lib/store/client.js';
import { controlId, controlPositionKey } from '../../lib/store/projects.js';
import { readIndex } from '../../lib/store/control-filters.js';
import { taskCount, taskKeys } from '../../lib/store/tasks.js';
import { storedControl } from '../support/tasks.js';
import { createControl } from '../support/factories.js';
import { issueToken } from '../../lib/auth/issue.js';

let admin: (...args: string[]) => CliResult;
/** The organisation the tests grant access in and make their projects in: what they assert on does not depend on what else it holds. */
let organisationId: string;

beforeAll(async () => {
  admin = await operatorCli();
  organisationId = await fixtures.organisation(await fixtures.user());
});

describe('operator CLI', () => {
  it('creates a user, grants access and issues a token that is stored only as a hash', async () => {
    const user = admin('user', 'create', '--email', `${newUlid().toLowerCase()}@cli.test`, '--name', 'Cli User');
    expect(user.code).toBe(0);
    const userId = user.json().id as string;
    const grant = admin('access', 'grant', '--user', userId, '--organisation', organisationId, '--permissions', 'view-projects,manage-projects');
    expect(grant.json()).toMatchObject({ user_id: userId, scope: 'organisation', permissions: ['view-projects', 'manage-projects'] });
    const issued = admin(
      'token',
      'issue',
      '--user',
      userId,
      '--type',
      'organisation',
      '--organisation',
      organisationId,
      '--abilities',
      'view-projects',
      '--read-only',
      'true',
    );
    expect(issued.code).toBe(0);
    const { id, token } = issued.json() as { id: string; token: string };
    expect(token).toMatch(/^aop_/);
    const stored = await getOne(keys.token(id));
    expect(stored).toMatchObject({ read_only: true, abilities: ['view-projects'], type: 'organisation' });
    expect(JSON.stringify(stored)).not.toContain(token.slice(-40));
  });

  it('prints a one-time console enrolment link with a new user, and a new one on re-enrolment', async () => {
    const created = admin('user', 'create', '--email', `${newUlid().toLowerCase()}@cli.test`, '--name', 'Linked User').json();
    expect(created.enrolment_url).toMatch(new RegExp(`^http://localhost:\\d+/console/enrol#${created.id}\\.[A-Za-z0-9_-]{43}$`));
    expect(Date.parse(created.enrolment_expires_at) - Date.now()).toBeGreaterThan(23 * 3_600_000);
    const again = admin('user', 'enrol', '--user', created.id).json();
    expect(again.enrolment_url).not.toBe(created.enrolment_url);
    expect((await getOne(keys.enrolmentLink(created.id)))?.link_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('grants the console permissions at installation scope only', async () => {
    const userId = await fixtures.user();
    expect(admin('access', 'grant', '--user', userId, '--installation', '--permissions', 'manage-users').code).toBe(0);
    const refused = admin('access', 'grant', '--user', userId, '--organisation', organisationId, '--permissions', 'manage-users');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('not organisation permissions: manage-users');
  });

  it('revokes a token', async () => {
    const userId = await fixtures.user();
    await fixtures.grant(userId, { kind: 'installation' }, ['manage-org-hierarchy']);
    const issued = await issueToken(
      userId,
      { token_type: 'administration', name: 'revoked by the CLI', abilities: ['manage-org-hierarchy'], read_only: false },
      new Date(),
    );
    expect(admin('token', 'revoke', '--id', issued.id).json()).toEqual({ id: issued.id, revoked: true });
    expect(await getOne(keys.token(issued.id))).toBeUndefined();
  });

  it.each([
    ['an unknown command', ['user', 'rename']],
    ['a missing option', ['user', 'create', '--name', 'No Email']],
    ['an unknown option', ['user', 'create', '--email', 'a@b.c', '--name', 'N', '--colour', 'red']],
    ['a wildcard ability', ['token', 'issue', '--user', newUlid(), '--type', 'administration', '--abilities', '*', '--read-only', 'true']],
    ['a missing mode', ['token', 'issue', '--user', newUlid(), '--type', 'administration', '--abilities', 'manage-org-hierarchy']],
    ['permissions of another scope', ['access', 'grant', '--user', newUlid(), '--installation', '--permissions', 'view-controls']],
  ])('prints one line on stderr and exits 2 for %s', (_label, args) => {
    const out = admin(...args);
    expect(out.code).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr.split('\n')).toHaveLength(1);
  });

  it('imports an ISM release idempotently, printing its version and entry count', () => {
    const first = admin('catalogue', 'import', '--path', '../shared/data/ism-2025.12.9');
    expect(first.code).toBe(0);
    expect(first.json()).toEqual({ release: '2025.12.9', controls: 1107 });
    expect(admin('catalogue', 'import', '--path', '../shared/data/ism-2025.12.9').json()).toEqual({ release: '2025.12.9', controls: 1107 });
  }, 60_000);

  it('refuses a directory without an OSCAL release in one line', () => {
    const out = admin('catalogue', 'import', '--path', 'lib');
    expect(out.code).toBe(2);
    expect(out.stderr.split('\n')).toHaveLength(1);
  });

  it('refuses to issue a permission the user does not hold live', async () => {
    const userId = await fixtures.user();
    await fixtures.grant(userId, { kind: 'installation' }, ['manage-org-hierarchy']);
    const out = admin(
      'token',
      'issue',
      '--user',
      userId,
      '--type',
      'administration',
      '--abilities',
      'manage-org-hierarchy,publish-provider-assurance-packages',
      '--read-only',
      'false',
    );
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('publish-provider-assurance-packages');
  });

  it('recounts a populated project: its summary and its control index', async () => {
    const projectId = await fixtures.project(organisationId);
    for (const position of [3, 1]) {
      const id = controlId(projectId, position, `entry-${position}`);
      await createControl({ id, project_id: projectId, position, catalogue_id: `entry-${position}`, workflow_state: position === 1 ? 'editing' : 'assessing' });
    }
    const out = admin('project', 'recount', '--project', projectId);
    expect(out.code).toBe(0);
    expect(out.json()).toEqual({ project: projectId, controls: 2 });
    expect(await getOne(keys.projectSummary(projectId))).toMatchObject({ controls: 2, applicable: 2, state_editing: 1, state_assessing: 1 });
    const index = await getOne(keys.projectControlIndex(projectId));
    expect(index).toMatchObject({ count: 2 });
    expect(readIndex(index)?.positions).toEqual([controlPositionKey(1), controlPositionKey(3)]);
  });

  it('applies the data migrations once, and on a second run reports each as already applied when it was', () => {
    const first = admin('migrate');
    expect(first.code).toBe(0);
    const steps = first.json().steps as { name: string; status: string; at: string }[];
    expect(steps.length).toBeGreaterThan(0);
    expect(admin('migrate').json().steps).toEqual(steps.map(({ name, at }) => ({ name, status: 'already applied', at })));
  });

  it('refuses to recount a project that is not populated', async () => {
    const projectId = await fixtures.project(organisationId);
    await ddb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.project(projectId),
        UpdateExpression: 'SET lifecycle_state = :s',
        ExpressionAttributeValues: { ':s': 'setup' },
      }),
    );
    const out = admin('project', 'recount', '--project', projectId);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/not populated/);
  });
});

describe('operator CLI: task create', () => {
  /** The project of these tests: only the first creates a task in it, the others are refused. */
  let projectId: string;

  beforeAll(async () => {
    projectId = await fixtures.project(organisationId);
  });

  it('creates an open manual task related to a control of the project and assigned to a project member', async () => {
    const controlId = await storedControl(projectId);
    const assignee = await fixtures.user();
    await fixtures.grant(assignee, { kind: 'project', id: projectId }, ['view-tasks']);
    const out = admin('task', 'create', '--project', projectId, '--title', 'Confirm the backup owner', '--control', controlId, '--assignee', assignee);
    expect(out.code).toBe(0);
    const { id } = out.json() as { id: string };
    expect(await getOne(taskKeys.task(projectId, id))).toMatchObject({
      kind: 'manual',
      status: 'open',
      title: 'Confirm the backup owner',
      related_control_id: controlId,
      assignee_user_id: assignee,
    });
    expect(taskCount(await getOne(taskKeys.counters(projectId)), 'open')).toBe(1);
  });

  it.each([
    ['an unknown project', /^no project/, async () => ['--project', newUlid(), '--title', 'T']],
    [
      'a control of another project',
      /is not a control of project/,
      async () => ['--project', projectId, '--title', 'T', '--control', await storedControl(await fixtures.project(organisationId))],
    ],
    ['an assignee without access to the project', /view-tasks/, async () => ['--project', projectId, '--title', 'T', '--assignee', await fixtures.user()]],
    ['a blank title', /--title/, async () => ['--project', projectId, '--title', ' ']],
  ])('refuses %s with one line on stderr and exit code 2', async (_label, message, args) => {
    const out = admin('task', 'create', ...(await args()));
    expect(out.code).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr).toMatch(message);
    expect(out.stderr.split('\n')).toHaveLength(1);
  });
});
