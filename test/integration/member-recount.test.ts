import { beforeAll, describe, expect, it, vi } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../../lib/store/client.js';
import { grantAccess } from '../../lib/store/identity.js';
import { keys } from '../../lib/store/keys.js';
import { memberCount, recountMembers } from '../../lib/store/members.js';
import { getOne } from '../../lib/store/read.js';
import { fixtures } from '../support/api.js';
import { useTestServices } from '../support/services.js';

/** Lets a test act between the recount's read of the counter and its Query of the member items. */
const between = vi.hoisted(() => ({ action: undefined as (() => Promise<void>) | undefined }));

vi.mock('../../lib/store/read.js', async (original) => {
  const actual = await original<typeof import('../../lib/store/read.js')>();
  return {
    ...actual,
    queryAll: async (...args: Parameters<typeof actual.queryAll>) => {
      const action = between.action;
      between.action = undefined;
      await action?.();
      return actual.queryAll(...args);
    },
  };
});

beforeAll(async () => {
  await useTestServices();
});

describe('recountMembers', () => {
  it('corrects a wrong counter even when a grant between its two reads makes the numbers agree', async () => {
    const organisationId = await fixtures.organisation(await fixtures.user());
    for (let i = 0; i < 2; i++) await grantAccess(await fixtures.user(), { kind: 'organisation', id: organisationId }, ['view-projects'], new Date());
    const items = memberCount(await getOne(keys.organisationCounters(organisationId)));
    // One more than the member items: the drift the recount exists to correct.
    await ddb().send(new PutCommand({ TableName: tableName(), Item: { ...keys.organisationCounters(organisationId), members: items + 1 } }));
    const latecomer = await fixtures.user();
    between.action = () => grantAccess(latecomer, { kind: 'organisation', id: organisationId }, ['view-projects'], new Date());

    await recountMembers(organisationId);

    expect(memberCount(await getOne(keys.organisationCounters(organisationId)))).toBe(items + 1);
  });
});
