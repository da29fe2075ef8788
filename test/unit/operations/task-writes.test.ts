import { describe, expect, it } from 'vitest';
import { permissionsOf } from '../../../lib/domain/permissions.js';
import type { StoredTask } from '../../../lib/domain/tasks.js';
import { etagFor } from '../../../lib/operations/kernel/etag.js';
import type { OperationContext } from '../../../lib/operations/kernel/operation.js';
import { createTaskComment } from '../../../lib/operations/tasks/comments.js';
import { claimTask, releaseTask } from '../../../lib/operations/tasks/tasks.js';
import { keys } from '../../../lib/store/keys.js';
import { keyString, type Item } from '../../../lib/store/read.js';
import { taskItem } from '../../../lib/store/tasks.js';
import type { WriteItem } from '../../../lib/store/transact.js';
import { buildProject, buildTask } from '../../support/factories.js';

const PROJECT = '01J0000000000000000000PROJ';
const TASK = '01J0000000000000000000TASK';
const ME = 'user-me';

const task = (fields: Partial<StoredTask> = {}) => buildTask({ id: TASK, project_id: PROJECT, ...fields });

const project = { ...keys.project(PROJECT), ...buildProject({ id: PROJECT }) };

function context(stored: StoredTask): OperationContext {
  const items = new Map<string, Item>([
    [keyString(keys.project(PROJECT)), project],
    [keyString(taskItem(stored)), taskItem(stored)],
  ]);
  return {
    requestId: 'req',
    now: new Date('2026-11-23T10:00:00Z'),
    caller: {
      tokenId: 't',
      userId: ME,
      type: 'project',
      projectId: PROJECT,
      readOnly: false,
      permissions: new Set(permissionsOf('project')),
      superUser: false,
    },
    prefetched: (key) => items.get(keyString(key)),
    prefetchedCollection: () => [],
    ifMatch: etagFor('task', TASK, stored.version),
    page: { number: 1, size: 25 },
  };
}

/** The project's editability is a condition of the write's transaction, not only of the request's check. */
const checksEditability = (writes: WriteItem[] | undefined) =>
  writes?.some((w) => w.kind === 'check' && keyString(w.key) === keyString(keys.project(PROJECT)) && w.condition.expression.includes('='));

const params = { project: PROJECT, task: TASK };

describe('task writes', () => {
  it('claims under the project editability condition', async () => {
    const out = await claimTask.handle(context(task()), { params, query: {}, body: {} });
    expect(checksEditability(out.writes)).toBe(true);
  });

  it('releases under the project editability condition', async () => {
    const out = await releaseTask.handle(context(task({ assignee_user_id: ME })), { params, query: {}, body: {} });
    expect(checksEditability(out.writes)).toBe(true);
  });

  it('comments under the project editability condition', async () => {
    const out = await createTaskComment.handle(context(task()), { params, query: {}, body: { comment: 'Noted.' } });
    expect(checksEditability(out.writes)).toBe(true);
  });
});
