import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBDocumentClient, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { resetDdbClient, tableName } from '../../../lib/store/client.js';
import { itemPresent } from '../../../lib/store/conditions.js';
import { StoredItemInvalid } from '../../../lib/store/entity.js';
import { keys } from '../../../lib/store/keys.js';
import { commitGrant, isActiveMember, membersPage, syncMemberships } from '../../../lib/store/members.js';
import { projectItem } from '../../../lib/store/projects.js';
import { buildProject, buildUser, storedAccess } from '../../support/factories.js';
import { mockedItems } from '../../support/table-mock.js';
import { memberCount } from '../../../lib/store/members.js';
import { describeCollectionCount } from '../../support/stored-entities.js';

const ddb = mockClient(DynamoDBDocumentClient);
const table = mockedItems(ddb);
beforeEach(() => {
  ddb.reset();
  resetDdbClient();
  table.answer();
});

const ORG = '01M84T2AZS9C8TZ6EGZG2RXYH1';
const now = new Date('2026-11-22T10:00:00.000Z');
const user = buildUser({ name: 'Ada Member' });
const storedUser = (over: Record<string, unknown> = {}) => ({ ...keys.user(user.id), entity: 'user', ...user, ...over });
const memberRef = (userId: string) => ({ ...keys.organisationMember(ORG, userId), user_id: userId });
const transactions = () => ddb.commandCalls(TransactWriteCommand).map((c) => c.args[0].input.TransactItems);

describe('membersPage', () => {
  it("reads a page of member items with their keys, then the users' names", async () => {
    ddb.on(QueryCommand).resolves({ Items: [memberRef(user.id)] });
    table.put(storedUser());
    expect(await membersPage(ORG, { number: 1, size: 10 })).toEqual([{ id: user.id, name: 'Ada Member' }]);
    expect(ddb.commandCalls(QueryCommand)[0]!.args[0].input).toMatchObject({
      TableName: tableName(),
      ExpressionAttributeValues: { ':pk': `ORG#${ORG}`, ':sk': 'MEMBER#' },
      ProjectionExpression: 'PK, SK, user_id',
    });
  });

  it('refuses a member item without its user, naming its key', async () => {
    const { user_id: _u, ...unnamed } = memberRef(user.id);
    ddb.on(QueryCommand).resolves({ Items: [unnamed] });
    await expect(membersPage(ORG, { number: 1, size: 10 })).rejects.toThrow(StoredItemInvalid);
    await expect(membersPage(ORG, { number: 1, size: 10 })).rejects.toThrow(`ORG#${ORG}|MEMBER#${user.id}`);
  });

  it('refuses a user record that fails its schema, naming its key', async () => {
    ddb.on(QueryCommand).resolves({ Items: [memberRef(user.id)] });
    table.put(storedUser({ name: 7 }));
    await expect(membersPage(ORG, { number: 1, size: 10 })).rejects.toThrow(`USER#${user.id}|PROFILE`);
  });
});

describe('isActiveMember', () => {
  it("is true for a member item whose user is active, false once the user's status moved", async () => {
    table.put(memberRef(user.id), storedUser());
    const active = await isActiveMember(ORG, user.id);
    table.put(storedUser({ status: 'disabled' }));
    expect([active, await isActiveMember(ORG, user.id)]).toEqual([true, false]);
  });
});

describe('commitGrant', () => {
  it("makes an active user a member, conditional on the user's status as read", async () => {
    table.put(storedUser());
    ddb.on(TransactWriteCommand).resolves({});
    await commitGrant({ kind: 'check', key: keys.organisation(ORG), condition: itemPresent() }, user.id, ORG, now);
    const [items] = transactions();
    expect(items?.[1]?.Update?.Key).toEqual(keys.user(user.id));
    expect(Object.values(items?.[1]?.Update?.ExpressionAttributeValues ?? {})).toContain('active');
    expect(items?.[2]?.Put?.Item).toMatchObject({ ...keys.organisationMember(ORG, user.id), user_id: user.id });
  });
});

describe('syncMemberships', () => {
  it("finds the organisation of a project grant from before grants named it, and requires the user's access version as read", async () => {
    const project = buildProject({ organisation_id: ORG });
    const { organisation_id: _o, ...older } = storedAccess(user.id, { kind: 'project', id: project.id }, ['view-controls']);
    ddb.on(QueryCommand).resolves({ Items: [older] });
    table.put(storedUser({ access_version: 4 }), projectItem(project));
    ddb.on(TransactWriteCommand).resolves({});
    await syncMemberships(user.id, now);
    const [items] = transactions();
    expect(items?.[0]?.Put?.Item).toMatchObject({ ...keys.organisationMember(ORG, user.id), user_id: user.id });
    expect(items?.[2]?.ConditionCheck?.Key).toEqual(keys.user(user.id));
    expect(Object.values(items?.[2]?.ConditionCheck?.ExpressionAttributeValues ?? {})).toContain(4);
  });

  it('refuses an access item that fails its schema, naming its key', async () => {
    const broken = { ...storedAccess(user.id, { kind: 'organisation', id: ORG }, ['view-projects']), granted_at: 1 };
    ddb.on(QueryCommand).resolves({ Items: [broken] });
    table.put(storedUser());
    await expect(syncMemberships(user.id, now)).rejects.toThrow(`USER#${user.id}|ACCESS#ORG#${ORG}`);
  });
});

describeCollectionCount("an organisation's member count", memberCount, {
  counters: keys.organisationCounters('O1'),
  name: 'members',
  neighbour: 'systems',
  malformed: { what: 'that is negative', value: -2 },
});
