import { beforeAll, describe, expect, it } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../../lib/store/client.js';
import { grantAccess, livePermissions } from '../../lib/store/identity.js';
import { keys } from '../../lib/store/keys.js';
import { isActiveMember, memberCount } from '../../lib/store/members.js';
import { getOne } from '../../lib/store/read.js';
import { createOrganisation, createUser } from '../support/factories.js';
import { useTestServices } from '../support/services.js';

let organisationId: string;

beforeAll(async () => {
  await useTestServices();
  organisationId = (await createOrganisation()).id;
});

describe('organisation members on grant', () => {
  it('writes the access, the member item and the counter together', async () => {
    const userId = await createUser();
    const before = memberCount(await getOne(keys.organisationCounters(organisationId)));
    await grantAccess(userId, { kind: 'organisation', id: organisationId }, ['view-projects'], new Date());
    expect(await livePermissions(userId, { kind: 'organisation', id: organisationId })).toEqual(new Set(['view-projects']));
    expect(await isActiveMember(organisationId, userId)).toBe(true);
    expect(memberCount(await getOne(keys.organisationCounters(organisationId)))).toBe(before + 1);
  });

  it('leaves no access behind when the member counter cannot be written', async () => {
    const broken = (await createOrganisation()).id;
    // A counter DynamoDB cannot ADD to: the member write fails inside the grant's transaction.
    await ddb().send(new PutCommand({ TableName: tableName(), Item: { ...keys.organisationCounters(broken), members: 'not a number' } }));
    const userId = await createUser();
    await expect(grantAccess(userId, { kind: 'organisation', id: broken }, ['view-projects'], new Date())).rejects.toThrow();
    expect(await livePermissions(userId, { kind: 'organisation', id: broken })).toBeUndefined();
    expect(await isActiveMember(broken, userId)).toBe(false);
  });
});
