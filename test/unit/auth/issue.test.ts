import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { decodeTime } from 'ulid';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { IssuanceError, type IssuanceRequest } from '../../../lib/auth/issuance.js';
import { configuredLifetimes, issueToken, issueTokenAs } from '../../../lib/auth/issue.js';
import { resetTokenHashSecret } from '../../../lib/auth/secret.js';
import { tokenMatches, verifiedClaims } from '../../../lib/auth/tokens.js';
import { resetSettings } from '../../../lib/config.js';
import { resetDdbClient, tableName } from '../../../lib/store/client.js';
import type { AccessScope } from '../../../lib/store/identity.js';
import { gsi1, keys } from '../../../lib/store/keys.js';
import { buildOrganisation, buildProject, buildUser, storedAccess } from '../../support/factories.js';

const ddb = mockClient(DynamoDBDocumentClient);
const KEY = 'k'.repeat(48);
const now = new Date('2026-11-27T06:00:00.000Z');
const inDays = (n: number) => new Date(now.getTime() + n * 86_400_000).toISOString();

const user = buildUser();
const organisation = buildOrganisation();
const project = buildProject({ organisation_id: organisation.id });

function stored(item: Record<string, unknown> & { PK: string; SK: string }) {
  ddb.on(GetCommand, { Key: { PK: item.PK, SK: item.SK } }).resolves({ Item: item });
}
const grant = (scope: AccessScope, permissions: string[]) => stored(storedAccess(user.id, scope, permissions));

beforeEach(() => {
  ddb.reset();
  resetDdbClient();
  ddb.on(GetCommand).resolves({});
  ddb.on(PutCommand).resolves({});
  vi.stubEnv('TOKEN_HASH_SECRET', KEY);
  resetSettings();
  resetTokenHashSecret();
  stored({ ...keys.user(user.id), entity: 'user', ...user });
  stored({ ...keys.organisation(organisation.id), ...organisation });
  stored({ ...keys.project(project.id), entity: 'project', ...project });
});
afterEach(() => {
  vi.unstubAllEnvs();
  resetSettings();
  resetTokenHashSecret();
});

const projectRequest: IssuanceRequest = {
  token_type: 'project',
  project_id: project.id,
  name: ' CI ',
  abilities: ['view-controls'],
  read_only: true,
  expires_at: inDays(10),
};
const reasonOf = (attempt: Promise<unknown>) =>
  attempt.then(
    () => 'issued',
    (error: unknown) => (error instanceof IssuanceError ? error.reason : String(error)),
  );
const puts = () => ddb.commandCalls(PutCommand).map((c) => c.args[0].input);

describe('configuredLifetimes', () => {
  it('answers the lifetimes the installation is configured with', () => {
    vi.stubEnv('TOKEN_PROJECT_READ_ONLY_MAX_DAYS', '60');
    vi.stubEnv('TOKEN_PROJECT_MUTATION_MAX_DAYS', '14');
    vi.stubEnv('TOKEN_ORGANISATION_MAX_DAYS', '7');
    vi.stubEnv('TOKEN_ADMINISTRATION_MAX_DAYS', '3');
    resetSettings();
    expect(configuredLifetimes()).toEqual({ projectReadOnlyDays: 60, projectMutationDays: 14, organisationDays: 7, administrationDays: 3 });
  });
});

describe('issueToken', () => {
  it('stores the token with its binding, grants and mode, keeping only a keyed hash of the secret, where no token is', async () => {
    grant({ kind: 'project', id: project.id }, ['view-controls']);
    const issued = await issueToken(user.id, projectRequest, now);
    expect(puts()).toEqual([
      {
        TableName: tableName(),
        Item: {
          ...keys.token(issued.id),
          GSI1PK: gsi1.userTokens(user.id),
          GSI1SK: issued.id,
          entity: 'token',
          id: issued.id,
          user_id: user.id,
          type: 'project',
          organisation_id: organisation.id,
          project_id: project.id,
          name: 'CI',
          abilities: ['view-controls'],
          read_only: true,
          expires_at: inDays(10),
          created_at: now.toISOString(),
          secret_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        },
        ConditionExpression: 'attribute_not_exists(#cnd0)',
        ExpressionAttributeNames: { '#cnd0': 'PK' },
      },
    ]);
  });

  it('answers the secret once: the stored hash is of it, under the installation key', async () => {
    grant({ kind: 'project', id: project.id }, ['view-controls']);
    const issued = await issueToken(user.id, projectRequest, now);
    expect(tokenMatches(issued.token, String(puts()[0]!.Item?.secret_hash), KEY)).toBe(true);
  });

  it('answers a token whose claims name it, its user and its binding, and an id of the issue time', async () => {
    grant({ kind: 'project', id: project.id }, ['view-controls']);
    const issued = await issueToken(user.id, projectRequest, now);
    expect([verifiedClaims(issued.token, KEY), decodeTime(issued.id), issued.expires_at]).toEqual([
      { tokenId: issued.id, userId: user.id, organisationId: organisation.id, projectId: project.id },
      now.getTime(),
      inDays(10),
    ]);
  });

  it('issues an organisation token to a user with access to the organisation', async () => {
    grant({ kind: 'organisation', id: organisation.id }, ['manage-org-hierarchy', 'view-projects']);
    const request = { token_type: 'organisation', organisation_id: organisation.id, name: 'Org', abilities: ['view-projects'], read_only: true };
    await issueToken(user.id, request, now);
    expect(puts()[0]!.Item).toMatchObject({ type: 'organisation', organisation_id: organisation.id, expires_at: inDays(30) });
  });

  it('refuses a request the form checks refuse, reading nothing', async () => {
    expect(await reasonOf(issueToken(user.id, { ...projectRequest, read_only: undefined }, now))).toBe('missing_mode');
    expect(ddb.calls()).toEqual([]);
  });

  it.each([
    ['disabled', () => stored({ ...keys.user(user.id), entity: 'user', ...user, status: 'disabled' })],
    ['gone', () => ddb.on(GetCommand, { Key: keys.user(user.id) }).resolves({})],
  ])('refuses a user who is %s', async (_label, arrange) => {
    arrange();
    expect(await reasonOf(issueToken(user.id, projectRequest, now))).toBe('inactive_user');
  });

  it('refuses a project that does not exist', async () => {
    expect(await reasonOf(issueToken(user.id, { ...projectRequest, project_id: buildProject().id }, now))).toBe('malformed_binding');
  });

  it('refuses an organisation that does not exist', async () => {
    const request = { token_type: 'organisation', organisation_id: buildOrganisation().id, name: 'Org', abilities: ['view-projects'], read_only: true };
    expect(await reasonOf(issueToken(user.id, request, now))).toBe('malformed_binding');
  });

  it('refuses a user without access to the project', async () => {
    expect(await reasonOf(issueToken(user.id, projectRequest, now))).toBe('no_access');
  });

  it('refuses a permission the user does not hold, naming it', async () => {
    grant({ kind: 'project', id: project.id }, ['view-controls']);
    const attempt = issueToken(user.id, { ...projectRequest, abilities: ['view-controls', 'view-registers'] }, now);
    await expect(attempt).rejects.toThrow(new IssuanceError('issuer_lacks_permission', 'the user does not hold view-registers'));
  });

  it('refuses an Administration token to a user without installation access as lacking manage-org-hierarchy', async () => {
    const request = { token_type: 'administration', name: 'Admin', abilities: ['manage-org-hierarchy'], read_only: false };
    await expect(issueToken(user.id, request, now)).rejects.toThrow(
      new IssuanceError('issuer_lacks_permission', 'the user does not hold manage-org-hierarchy'),
    );
  });

  it('stores nothing when it refuses', async () => {
    await reasonOf(issueToken(user.id, projectRequest, now));
    expect(puts()).toEqual([]);
  });
});

describe('issueTokenAs', () => {
  it('audits the issue as the user’s, naming the token and neither its secret nor its hash', async () => {
    grant({ kind: 'project', id: project.id }, ['view-controls']);
    const issued = await issueTokenAs(user.id, projectRequest, { request_id: 'R1', method: 'POST', route: '/console/tokens', source_ip: '192.0.2.1' }, now);
    expect(puts()[1]).toEqual({
      TableName: tableName(),
      Item: {
        ...keys.audit('installation', '2026-11-27', expect.stringMatching(/^2026-11-27T06:00:00.000Z#/)),
        entity: 'audit',
        id: expect.any(String),
        at: now.toISOString(),
        request_id: 'R1',
        method: 'POST',
        route: '/console/tokens',
        source_ip: '192.0.2.1',
        kind: 'TOKEN_ISSUED',
        status: 0,
        actor_id: user.id,
        token_id: issued.id,
      },
    });
  });
});
