import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type Attribution, stillAuthorised } from '../../../lib/auth/revalidate.js';
import { resetDdbClient, tableName } from '../../../lib/store/client.js';
import { keys } from '../../../lib/store/keys.js';
import type { Item } from '../../../lib/store/read.js';
import { StoredItemInvalid } from '../../../lib/store/entity.js';
import { buildToken, storedAccess } from '../../support/factories.js';

const ddb = mockClient(DynamoDBDocumentClient);
beforeEach(() => {
  ddb.reset();
  resetDdbClient();
});

const now = new Date('2026-11-22T10:00:00.000Z');
const job: Attribution = { tokenId: 'T', userId: 'U', scope: { kind: 'project', id: 'P' }, permissions: ['view-controls', 'edit-control-assessment'] };
const token = {
  ...keys.token('T'),
  ...buildToken({
    id: 'T',
    user_id: 'U',
    type: 'project',
    project_id: 'P',
    abilities: ['view-controls', 'view-control-assessment', 'edit-control-assessment'],
  }),
};
const user = { ...keys.user('U'), id: 'U', email: 'ann@example.org', name: 'Ann', status: 'active', super_user: false, created_at: '2026-01-01T00:00:00.000Z' };
const access = storedAccess('U', { kind: 'project', id: 'P' }, ['view-controls', 'view-control-assessment', 'edit-control-assessment']);

function stored(...items: Item[]) {
  ddb.on(BatchGetCommand).resolves({ Responses: { [tableName()]: items } });
}

describe('stillAuthorised', () => {
  it('holds while the token, actor and access all still grant every permission the job needs', async () => {
    stored(token, user, access);
    expect(await stillAuthorised(job, now)).toBe(true);
  });

  it('reads the token, actor and access together, strongly consistent', async () => {
    stored(token, user, access);
    await stillAuthorised(job, now);
    expect(ddb.commandCalls(BatchGetCommand).map((c) => c.args[0].input)).toEqual([
      { RequestItems: { [tableName()]: { Keys: [keys.token('T'), keys.user('U'), keys.projectAccess('U', 'P')], ConsistentRead: true } } },
    ]);
  });

  it.each([
    ['the token was revoked', () => stored(user, access)],
    ['the token expired', () => stored({ ...token, expires_at: now.toISOString() }, user, access)],
    ['the token is another actor’s', () => stored({ ...token, user_id: 'V' }, user, access)],
    ['the actor was disabled', () => stored(token, { ...user, status: 'disabled' }, access)],
    ['the access was revoked', () => stored(token, user)],
    ['the access no longer grants a permission', () => stored(token, user, { ...access, permissions: ['view-controls'] })],
    ['the token does not select a permission', () => stored({ ...token, abilities: ['view-controls'] }, user, access)],
  ])('stops when %s', async (_label, arrange) => {
    arrange();
    expect(await stillAuthorised(job, now)).toBe(false);
  });

  it('refuses a stored token that fails its schema instead of using it', async () => {
    stored({ ...token, expires_at: 20270101 }, user, access);
    await expect(stillAuthorised(job, now)).rejects.toThrow(StoredItemInvalid);
  });
});
