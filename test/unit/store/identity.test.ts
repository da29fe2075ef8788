import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { resetDdbClient, tableName } from '../../../lib/store/client.js';
import {
  accessScopeOf,
  credentialProves,
  deleteToken,
  getToken,
  putToken,
  toAccess,
  toToken,
  toUser,
  userAccess,
  userTokens,
  usersIndex,
} from '../../../lib/store/identity.js';
import { keys } from '../../../lib/store/keys.js';
import { readsStoredEntity } from '../../support/stored-entities.js';
import { buildAccess, buildToken, buildUser } from '../../support/factories.js';

const ddb = mockClient(DynamoDBDocumentClient);
beforeEach(() => {
  ddb.reset();
  resetDdbClient();
});

const user = buildUser({ passkeys: 1 });
const stored = { ...keys.user(user.id), ...usersIndex(user.email), entity: 'user', ...user };

describe('a stored user', () => {
  readsStoredEntity(toUser, stored, { super_user: 'no' });
});

const token = buildToken({ id: '01M84T2AZS9C8TZ6EGZG2RXYHT', user_id: '01M84T2AZS9C8TZ6EGZG2RXYHA', organisation_id: '01M84T2AZS9C8TZ6EGZG2RXYHO' });
const storedToken = { ...keys.token(token.id), GSI1PK: `USERTOKENS#${token.user_id}`, GSI1SK: token.id, entity: 'token', ...token };

describe('a stored token', () => {
  readsStoredEntity(toToken, storedToken, { expires_at: 20270101 });

  it('reads a token issued before stored modes and current grants: authentication refuses it, not the read', () => {
    const { read_only: _mode, ...legacy } = token;
    expect(toToken({ ...storedToken, read_only: undefined, abilities: ['admin'] })).toEqual({ ...legacy, read_only: undefined, abilities: ['admin'] });
  });
});

describe('credentialProves', () => {
  const matchesAb12 = (hash: string) => hash === 'ab12';

  it('is true when the presented credential matches the stored hash', () => {
    expect(credentialProves(storedToken, matchesAb12)).toBe(true);
  });

  it('is false when it does not match', () => {
    expect(credentialProves(storedToken, (hash) => hash === 'cd34')).toBe(false);
  });

  it('is false, without refusing the item, for a token whose other fields fail the schema', () => {
    expect(credentialProves({ ...storedToken, expires_at: 20270101, secret_hash: 'cd34' }, matchesAb12)).toBe(false);
  });

  it('is false for a token item without a readable hash', () => {
    expect(credentialProves({ ...storedToken, secret_hash: 42 }, () => true)).toBe(false);
  });

  it('is false when there is no token item', () => {
    expect(credentialProves(undefined, () => true)).toBe(false);
  });
});

describe('putToken', () => {
  it('puts the token with its key and its owner index entry, only where none is', async () => {
    ddb.on(PutCommand).resolves({});
    await putToken(token);
    expect(ddb.commandCalls(PutCommand).map((c) => c.args[0].input)).toEqual([
      { TableName: tableName(), Item: storedToken, ConditionExpression: 'attribute_not_exists(#cnd0)', ExpressionAttributeNames: { '#cnd0': 'PK' } },
    ]);
  });
});

describe('deleteToken', () => {
  it('deletes only the named token', async () => {
    ddb.on(DeleteCommand).resolves({ Attributes: storedToken });
    await deleteToken(token.id);
    expect(ddb.commandCalls(DeleteCommand).map((c) => c.args[0].input)).toEqual([
      { TableName: tableName(), Key: keys.token(token.id), ReturnValues: 'ALL_OLD' },
    ]);
  });

  it('answers that it deleted a token, even one that fails its schema', async () => {
    ddb.on(DeleteCommand).resolves({ Attributes: { ...storedToken, expires_at: 20270101 } });
    expect(await deleteToken(token.id)).toBe(true);
  });

  it('answers false when there was no token', async () => {
    ddb.on(DeleteCommand).resolves({});
    expect(await deleteToken(token.id)).toBe(false);
  });
});

describe('getToken', () => {
  it('reads the named token consistently and parses it', async () => {
    ddb.on(GetCommand).resolves({ Item: storedToken });
    expect(await getToken(token.id)).toEqual(token);
    expect(ddb.commandCalls(GetCommand).map((c) => c.args[0].input)).toEqual([{ TableName: tableName(), Key: keys.token(token.id), ConsistentRead: true }]);
  });

  it('answers undefined when there is no token', async () => {
    ddb.on(GetCommand).resolves({});
    expect(await getToken(token.id)).toBeUndefined();
  });

  it('refuses a token item that fails its schema, naming its key', async () => {
    ddb.on(GetCommand).resolves({ Item: { ...storedToken, user_id: 7 } });
    await expect(getToken(token.id)).rejects.toThrow(keys.token(token.id).PK);
  });
});

describe('userTokens', () => {
  const second = buildToken({ id: '01M84T2AZS9C8TZ6EGZG2RXYHZ', user_id: token.user_id });
  const storedSecond = { ...keys.token(second.id), GSI1PK: `USERTOKENS#${second.user_id}`, GSI1SK: second.id, entity: 'token', ...second };

  it('reads every page of the owner index, newest first', async () => {
    ddb
      .on(QueryCommand)
      .resolvesOnce({ Items: [storedSecond], LastEvaluatedKey: keys.token(second.id) })
      .resolvesOnce({ Items: [storedToken] });
    expect(await userTokens(token.user_id)).toEqual([second, token]);
    const query = {
      TableName: tableName(),
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': `USERTOKENS#${token.user_id}` },
      ScanIndexForward: false,
    };
    expect(ddb.commandCalls(QueryCommand).map((c) => c.args[0].input)).toEqual([
      { ...query, ExclusiveStartKey: undefined },
      { ...query, ExclusiveStartKey: keys.token(second.id) },
    ]);
  });
});

const organisationAccess = buildAccess({ kind: 'organisation', id: 'O1' }, { user_id: user.id });
const storedAccess: Record<string, unknown> & { PK: string; SK: string } = {
  ...keys.organisationAccess(user.id, 'O1'),
  entity: 'access',
  ...organisationAccess,
};

describe('a stored access record', () => {
  readsStoredEntity(toAccess, storedAccess, { permissions: 'view-projects' });

  it('refuses an organisation grant that names no organisation', () => {
    const { organisation_id: _o, ...unnamed } = storedAccess;
    expect(() => toAccess(unnamed)).toThrow(keys.organisationAccess(user.id, 'O1').SK);
  });
});

describe('accessScopeOf', () => {
  it('is the scope each kind of grant applies at', () => {
    expect(accessScopeOf(buildAccess({ kind: 'installation' }))).toEqual({ kind: 'installation' });
    expect(accessScopeOf(organisationAccess)).toEqual({ kind: 'organisation', id: 'O1' });
    expect(accessScopeOf(buildAccess({ kind: 'project', id: 'P1' }, { organisationId: 'O1' }))).toEqual({ kind: 'project', id: 'P1' });
  });
});

describe('userAccess', () => {
  it("reads the user's grants at every scope from the user's partition, strongly consistently", async () => {
    ddb.on(QueryCommand).resolves({ Items: [storedAccess] });
    expect(await userAccess(user.id)).toEqual([organisationAccess]);
    expect(ddb.commandCalls(QueryCommand).map((c) => c.args[0].input)).toEqual([
      {
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
        ExpressionAttributeValues: { ':pk': keys.user(user.id).PK, ':sk': 'ACCESS#' },
        ConsistentRead: true,
        ExclusiveStartKey: undefined,
      },
    ]);
  });
});
