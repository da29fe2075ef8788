import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../../lib/store/client.js';
import { grantAccess, revokeAccess } from '../../lib/store/identity.js';
import { keys } from '../../lib/store/keys.js';
import { isActiveMember, memberCount, recountMembers } from '../../lib/store/members.js';
import { getOne } from '../../lib/store/read.js';
import { aroundNextQuery } from '../support/aws-faults.js';
import { createOrganisation, createProject, createUser } from '../support/factories.js';
import { useTestServices } from '../support/services.js';

let stop = () => {};

beforeAll(async () => {
  await useTestServices();
});
afterEach(() => stop());

describe('recountMembers', () => {
  it('corrects a wrong counter even when a grant between its two reads makes the numbers agree', async () => {
    const organisationId = (await createOrganisation()).id;
    for (let i = 0; i < 2; i++) await grantAccess(await createUser(), { kind: 'organisation', id: organisationId }, ['view-projects'], new Date());
    const items = memberCount(await getOne(keys.organisationCounters(organisationId)));
    // One more than the member items: the drift the recount exists to correct.
    await ddb().send(new PutCommand({ TableName: tableName(), Item: { ...keys.organisationCounters(organisationId), members: items + 1 } }));
    const latecomer = await createUser();
    stop = await aroundNextQuery(keys.organisation(organisationId).PK, {
      before: () => grantAccess(latecomer, { kind: 'organisation', id: organisationId }, ['view-projects'], new Date()),
    });

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
    stop = await aroundNextQuery(keys.user(userId).PK, { after: () => grantAccess(userId, { kind: 'project', id: projectId }, ['view-projects'], new Date()) });

    await revokeAccess(userId, { kind: 'organisation', id: organisationId });

    expect(await isActiveMember(organisationId, userId)).toBe(true);
    expect(memberCount(await getOne(keys.organisationCounters(organisationId)))).toBe(members);
  });
});
