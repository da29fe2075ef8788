import { beforeAll, describe, expect, it, vi } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../../lib/store/client.js';
import { grantAccess, revokeAccess } from '../../lib/store/identity.js';
import { keys } from '../../lib/store/keys.js';
import { isActiveMember, memberCount, recountMembers } from '../../lib/store/members.js';
import { getOne } from '../../lib/store/read.js';
import { createOrganisation, createProject, createUser } from '../support/factories.js';
import { useTestServices } from '../support/services.js';

/** Lets a test act once just before, or just after, the next Query that reads everything (member items, a user's access items). */
const around = vi.hoisted(() => ({ before: undefined as (() => Promise<void>) | undefined, after: undefined as (() => Promise<void>) | undefined }));

vi.mock('../../lib/store/read.js', async (original) => {
  const actual = await original<typeof import('../../lib/store/read.js')>();
  const once = async (when: 'before' | 'after') => {
    const action = around[when];
    around[when] = undefined;
    await action?.();
  };
  return {
    ...actual,
    queryAll: async (...args: Parameters<typeof actual.queryAll>) => {
      await once('before');
      const items = await actual.queryAll(...args);
      await once('after');
      return items;
    },
  };
});

beforeAll(async () => {
  await useTestServices();
});

describe('recountMembers', () => {
  it('corrects a wrong counter even when a grant between its two reads makes the numbers agree', async () => {
    const organisationId = (await createOrganisation()).id;
    for (let i = 0; i < 2; i++) await grantAccess(await createUser(), { kind: 'organisation', id: organisationId }, ['view-projects'], new Date());
    const items = memberCount(await getOne(keys.organisationCounters(organisationId)));
    // One more than the member items: the drift the recount exists to correct.
    await ddb().send(new PutCommand({ TableName: tableName(), Item: { ...keys.organisationCounters(organisationId), members: items + 1 } }));
    const latecomer = await createUser();
    around.before = () => grantAccess(latecomer, { kind: 'organisation', id: organisationId }, ['view-projects'], new Date());

    await recountMembers(organisationId);

    expect(memberCount(await getOne(keys.organisationCounters(organisationId)))).toBe(items + 1);
  });
});

describe('a revoke racing a grant in the same organisation', () => {
  it('keeps the member whose grant landed after the revoke read the access items', async () => {
    const organisationId = (await createOrganisation()).id;
    const projectId = (await createProject({ organisation_id: organisationId })).id;
    const userId = await createUser();
    await grantAccess(userId, { kind: 'organisation', id: organisationId }, ['view-projects'], new Date());
    const members = memberCount(await getOne(keys.organisationCounters(organisationId)));
    // The revoke's sync has read the access items (the organisation grant gone, the project grant not yet there).
    around.after = () => grantAccess(userId, { kind: 'project', id: projectId }, ['view-projects'], new Date());

    await revokeAccess(userId, { kind: 'organisation', id: organisationId });

    expect(await isActiveMember(organisationId, userId)).toBe(true);
    expect(memberCount(await getOne(keys.organisationCounters(organisationId)))).toBe(members);
  });
});
