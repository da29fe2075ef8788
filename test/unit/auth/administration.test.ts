import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  type AuditContext,
  createUserAs,
  enrolmentLinkHash,
  grantAccessAs,
  grantablePermissions,
  reEnrolAs,
  revokeAccessAs,
  revokeTokenAs,
  setStatusAs,
} from '../../../lib/auth/administration.js';
import { AdministrationRefusedError, type Administrator } from '../../../lib/auth/administrator.js';
import { resetSettings } from '../../../lib/config.js';
import { resetDdbClient, tableName } from '../../../lib/store/client.js';
import type { UserRecord } from '../../../lib/store/identity.js';
import { keys } from '../../../lib/store/keys.js';
import { buildOrganisation, buildToken, buildUser } from '../../support/factories.js';

const ddb = mockClient(DynamoDBDocumentClient);
const now = new Date('2026-11-27T06:00:00.000Z');
const ctx: AuditContext = { request_id: 'R1', method: 'POST', route: '/console/users', source_ip: '192.0.2.1' };

const OPERATOR: Administrator = { kind: 'operator' };
const admin = (...permissions: string[]): Administrator => ({ kind: 'user', id: '01M84T2AZS9C8TZ6EGZG2RXYHZ', permissions: new Set(permissions) });
const USER_ADMIN = admin('manage-users');

const storedUser = (u: UserRecord) => ddb.on(GetCommand, { Key: keys.user(u.id) }).resolves({ Item: { ...keys.user(u.id), entity: 'user', ...u } });

beforeEach(() => {
  ddb.reset();
  resetDdbClient();
  ddb.on(GetCommand).resolves({});
  ddb.on(BatchGetCommand).resolves({ Responses: {} });
  ddb.on(QueryCommand).resolves({ Items: [] });
  ddb.on(PutCommand).resolves({});
  ddb.on(UpdateCommand).resolves({});
  ddb.on(DeleteCommand).resolves({});
  ddb.on(TransactWriteCommand).resolves({});
});
afterEach(() => {
  vi.unstubAllEnvs();
  resetSettings();
});

const audits = () => ddb.commandCalls(PutCommand).flatMap((c) => (c.args[0].input.Item?.entity === 'audit' ? [c.args[0].input.Item] : []));
const refusal = (attempt: Promise<unknown>) =>
  attempt.then(
    () => 'done',
    (error: unknown) => (error instanceof AdministrationRefusedError ? `${error.reason}: ${error.message}` : String(error)),
  );

describe('enrolmentLinkHash', () => {
  it('is the SHA-256 of the link secret, in hex', () => {
    expect(enrolmentLinkHash('U.secret')).toBe(createHash('sha256').update('U.secret').digest('hex'));
  });
});

describe('createUserAs', () => {
  const input = { email: ' Ann@Example.org ', name: ' Ann ', superUser: false };

  it('creates an active user under the email in lower case', async () => {
    const { user } = await createUserAs(OPERATOR, input, ctx, now);
    expect(user).toEqual({ id: expect.any(String), email: 'ann@example.org', name: 'Ann', status: 'active', super_user: false, created_at: now.toISOString() });
  });

  it('issues an enrolment link that names the user and runs out after the configured hours', async () => {
    vi.stubEnv('ENROLMENT_LINK_HOURS', '48');
    resetSettings();
    const { user, enrolment } = await createUserAs(OPERATOR, input, ctx, now);
    expect([enrolment.secret.startsWith(`${user.id}.`), enrolment.expires_at]).toEqual([true, '2026-11-29T06:00:00.000Z']);
  });

  it('stores only the hash of the link secret, as the newest link of the user', async () => {
    const { user, enrolment } = await createUserAs(USER_ADMIN, input, ctx, now);
    const link = ddb.commandCalls(PutCommand).filter((c) => c.args[0].input.Item?.entity === 'enrolment-link');
    expect(link.map((c) => c.args[0].input)).toEqual([
      {
        TableName: tableName(),
        Item: {
          ...keys.enrolmentLink(user.id),
          entity: 'enrolment-link',
          user_id: user.id,
          link_hash: enrolmentLinkHash(enrolment.secret),
          expires_at: enrolment.expires_at,
          created_at: now.toISOString(),
          created_by: '01M84T2AZS9C8TZ6EGZG2RXYHZ',
          ttl: Date.parse(enrolment.expires_at) / 1000,
        },
      },
    ]);
  });

  it('audits the creation under the administrator who made it', async () => {
    const { user } = await createUserAs(USER_ADMIN, input, ctx, now);
    expect(audits()).toEqual([
      expect.objectContaining({
        ...ctx,
        kind: 'USER_CREATED',
        status: 0,
        actor_id: '01M84T2AZS9C8TZ6EGZG2RXYHZ',
        target: { user_id: user.id },
        details: { super_user: false },
      }),
    ]);
  });

  it.each([
    ['an email that is not one', { email: 'ann' }, 'invalid: email must be an email address'],
    ['a blank name', { name: ' ' }, 'invalid: name must not be empty'],
  ])('refuses %s, writing nothing', async (_label, over, message) => {
    expect(await refusal(createUserAs(OPERATOR, { ...input, ...over }, ctx, now))).toBe(message);
    expect(ddb.calls()).toEqual([]);
  });

  it('refuses an administrator without manage-users', async () => {
    expect(await refusal(createUserAs(admin('view-projects'), input, ctx, now))).toBe('forbidden: changing users needs manage-users');
  });

  it('refuses to create a super user without manage-super-users', async () => {
    expect(await refusal(createUserAs(USER_ADMIN, { ...input, superUser: true }, ctx, now))).toBe(
      'forbidden: changing a super user needs manage-users and manage-super-users',
    );
  });

  it('refuses an email another user has, as a conflict', async () => {
    ddb
      .on(TransactWriteCommand)
      .rejects(
        new TransactionCanceledException({ message: 'cancelled', $metadata: {}, CancellationReasons: [{ Code: 'None' }, { Code: 'ConditionalCheckFailed' }] }),
      );
    expect(await refusal(createUserAs(OPERATOR, input, ctx, now))).toBe('conflict: a user with email ann@example.org exists');
  });
});

describe('reEnrolAs', () => {
  const user = buildUser();

  it('moves the user’s session epoch, while the user is as read, ending their console sessions', async () => {
    storedUser(user);
    await reEnrolAs(OPERATOR, user.id, ctx, now);
    expect(ddb.commandCalls(UpdateCommand).map((c) => c.args[0].input)).toEqual([
      {
        TableName: tableName(),
        Key: keys.user(user.id),
        UpdateExpression: 'ADD #e :one',
        ConditionExpression: '(attribute_exists(#cnd0)) AND (#cnd1 = :cnd0)',
        ExpressionAttributeNames: { '#e': 'session_epoch', '#cnd0': 'PK', '#cnd1': 'status' },
        ExpressionAttributeValues: { ':one': 1, ':cnd0': 'active' },
      },
    ]);
  });

  it('issues a new link and audits how many passkeys went', async () => {
    storedUser(user);
    const enrolment = await reEnrolAs(OPERATOR, user.id, ctx, now);
    expect([enrolment.secret.startsWith(`${user.id}.`), audits().map((a) => [a?.kind, a?.details])]).toEqual([
      true,
      [['USER_REENROLLED', { passkeys_removed: 0 }]],
    ]);
  });

  it('refuses a user who is not active', async () => {
    storedUser({ ...user, status: 'disabled' });
    expect(await refusal(reEnrolAs(OPERATOR, user.id, ctx, now))).toBe('invalid: only an active user can be enrolled: enable the user first');
  });

  it.each([
    ['does not exist', () => undefined],
    ['was deleted', () => storedUser({ ...user, status: 'deleted' })],
  ])('answers a user who %s as not found', async (_label, arrange) => {
    arrange();
    expect(await refusal(reEnrolAs(OPERATOR, user.id, ctx, now))).toBe(`not_found: no user ${user.id}`);
  });
});

describe('setStatusAs', () => {
  const user = buildUser();

  it('disables the user while the user item is there, and audits it', async () => {
    storedUser(user);
    await setStatusAs(USER_ADMIN, user.id, 'disabled', ctx, now);
    expect([ddb.commandCalls(UpdateCommand)[0]?.args[0].input, audits().map((a) => [a?.kind, a?.target])]).toEqual([
      {
        TableName: tableName(),
        Key: keys.user(user.id),
        UpdateExpression: 'SET #set0 = :set0',
        ConditionExpression: 'attribute_exists(#cnd0)',
        ExpressionAttributeNames: { '#set0': 'status', '#cnd0': 'PK' },
        ExpressionAttributeValues: { ':set0': 'disabled' },
      },
      [['USER_DISABLED', { user_id: user.id }]],
    ]);
  });

  it('changes nothing and audits nothing when the user has the status already', async () => {
    storedUser({ ...user, status: 'disabled' });
    await setStatusAs(USER_ADMIN, user.id, 'disabled', ctx, now);
    expect([ddb.commandCalls(UpdateCommand), audits()]).toEqual([[], []]);
  });

  it.each([
    ['disable', 'disabled'],
    ['delete', 'deleted'],
  ] as const)('refuses to let administrators %s themselves', async (what, status) => {
    const self = buildUser({ id: '01M84T2AZS9C8TZ6EGZG2RXYHZ' });
    storedUser(self);
    expect(await refusal(setStatusAs(USER_ADMIN, self.id, status, ctx, now))).toBe(`invalid: you cannot ${what} yourself`);
  });

  it('answers a user gone before the write as not found', async () => {
    storedUser(user);
    ddb.on(UpdateCommand).rejects(Object.assign(new Error('gone'), { name: 'ConditionalCheckFailedException' }));
    expect(await refusal(setStatusAs(OPERATOR, user.id, 'disabled', ctx, now))).toBe(`not_found: no user ${user.id}`);
  });
});

describe('grantablePermissions', () => {
  it('offers the console permissions at installation scope, beside the Administration ones', () => {
    expect(grantablePermissions('installation')).toEqual([
      'manage-org-hierarchy',
      'publish-provider-assurance-packages',
      'view-restricted-provider-artefacts',
      'upload-restricted-provider-artefacts',
      'manage-users',
      'manage-super-users',
    ]);
  });

  it('offers no console permission at a project', () => {
    expect(grantablePermissions('project').filter((p) => p.startsWith('manage-users'))).toEqual([]);
  });
});

describe('grantAccessAs', () => {
  const user = buildUser();
  const installation = { kind: 'installation' } as const;

  it('stores each permission once at installation scope and audits the grant', async () => {
    storedUser(user);
    await grantAccessAs(OPERATOR, user.id, installation, ['manage-users', 'manage-org-hierarchy', 'manage-users'], ctx, now);
    const granted = ddb.commandCalls(PutCommand).filter((c) => c.args[0].input.Item?.entity === 'access');
    expect([granted.map((c) => c.args[0].input), audits().map((a) => [a?.kind, a?.target, a?.details])]).toEqual([
      [
        {
          TableName: tableName(),
          Item: {
            ...keys.installationAccess(user.id),
            entity: 'access',
            user_id: user.id,
            scope: 'installation',
            permissions: ['manage-users', 'manage-org-hierarchy'],
            granted_at: now.toISOString(),
          },
        },
      ],
      [['ACCESS_GRANTED', { user_id: user.id, scope: 'installation' }, { permissions: 'manage-users,manage-org-hierarchy' }]],
    ]);
  });

  it('refuses permissions of another scope, naming them', async () => {
    storedUser(user);
    expect(await refusal(grantAccessAs(OPERATOR, user.id, installation, ['view-controls'], ctx, now))).toBe(
      'invalid: not installation permissions: view-controls',
    );
  });

  it('refuses an empty grant', async () => {
    storedUser(user);
    expect(await refusal(grantAccessAs(OPERATOR, user.id, installation, [], ctx, now))).toBe(
      'invalid: pick at least one permission, or revoke the access instead',
    );
  });

  it('refuses to grant a console permission the administrator does not hold', async () => {
    storedUser(user);
    expect(await refusal(grantAccessAs(USER_ADMIN, user.id, installation, ['manage-super-users'], ctx, now))).toBe(
      'forbidden: granting manage-super-users needs holding it',
    );
  });

  it('refuses an organisation that does not exist, writing nothing', async () => {
    storedUser(user);
    const organisation = buildOrganisation();
    const attempt = grantAccessAs(OPERATOR, user.id, { kind: 'organisation', id: organisation.id }, ['view-projects'], ctx, now);
    expect([await refusal(attempt), ddb.commandCalls(PutCommand)]).toEqual([`not_found: no organisation ${organisation.id}`, []]);
  });
});

describe('revokeAccessAs', () => {
  const user = buildUser();
  const installation = { kind: 'installation' } as const;

  it('deletes the access and audits the revocation', async () => {
    storedUser(user);
    ddb.on(DeleteCommand).resolves({ Attributes: { ...keys.installationAccess(user.id), permissions: ['manage-users'] } });
    expect(await revokeAccessAs(OPERATOR, user.id, installation, ctx, now)).toBe(true);
    expect(audits().map((a) => [a?.kind, a?.target])).toEqual([['ACCESS_REVOKED', { user_id: user.id, scope: 'installation' }]]);
  });

  it('answers false and audits nothing when there was no access', async () => {
    storedUser(user);
    expect([await revokeAccessAs(OPERATOR, user.id, installation, ctx, now), audits()]).toEqual([false, []]);
  });
});

describe('revokeTokenAs', () => {
  const owner = buildUser();
  const token = buildToken({ user_id: owner.id });
  const storedToken = () => ddb.on(GetCommand, { Key: keys.token(token.id) }).resolves({ Item: { ...keys.token(token.id), entity: 'token', ...token } });
  const revoked = () => ddb.on(DeleteCommand).resolves({ Attributes: { ...keys.token(token.id), ...token } });

  it('lets the owner revoke their own token, deleting only it, and audits the revocation', async () => {
    storedToken();
    revoked();
    const self: Administrator = { kind: 'user', id: owner.id, permissions: new Set() };
    expect(await revokeTokenAs(self, token.id, ctx, now)).toEqual({ owner_id: owner.id });
    expect([ddb.commandCalls(DeleteCommand).map((c) => c.args[0].input), audits().map((a) => [a?.kind, a?.actor_id, a?.token_id, a?.details])]).toEqual([
      [{ TableName: tableName(), Key: keys.token(token.id), ReturnValues: 'ALL_OLD' }],
      [['TOKEN_REVOKED', owner.id, token.id, { owner_id: owner.id }]],
    ]);
  });

  it('lets an administrator with manage-users revoke another user’s token', async () => {
    storedToken();
    storedUser(owner);
    revoked();
    expect(await revokeTokenAs(USER_ADMIN, token.id, ctx, now)).toEqual({ owner_id: owner.id });
  });

  it('answers another user’s token as missing to someone without manage-users, deleting nothing', async () => {
    storedToken();
    storedUser(owner);
    expect([await refusal(revokeTokenAs(admin(), token.id, ctx, now)), ddb.commandCalls(DeleteCommand)]).toEqual([`not_found: no token ${token.id}`, []]);
  });

  it('refuses a super user’s token to an administrator without manage-super-users', async () => {
    storedToken();
    storedUser({ ...owner, super_user: true });
    expect(await refusal(revokeTokenAs(USER_ADMIN, token.id, ctx, now))).toBe('forbidden: changing a super user needs manage-users and manage-super-users');
  });

  it('answers a token that is not there as not found', async () => {
    expect(await refusal(revokeTokenAs(OPERATOR, token.id, ctx, now))).toBe(`not_found: no token ${token.id}`);
  });

  it('answers a token deleted meanwhile as not found, auditing nothing', async () => {
    storedToken();
    expect([await refusal(revokeTokenAs(OPERATOR, token.id, ctx, now)), audits()]).toEqual([`not_found: no token ${token.id}`, []]);
  });
});
