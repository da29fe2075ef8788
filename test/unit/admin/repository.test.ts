import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import dns from 'node:dns';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mockClient } from 'aws-sdk-client-mock';
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { connectionView, connectRepository, listConnections, removeConnection, RepositoryRefusedError } from '../../../lib/admin/repository.js';
import { resetTokenHashSecret } from '../../../lib/auth/secret.js';
import { resetSettings } from '../../../lib/config.js';
import { openToken } from '../../../lib/repositories/credentials.js';
import { resetDdbClient, tableName } from '../../../lib/store/client.js';
import { keys } from '../../../lib/store/keys.js';
import { buildOrganisation, buildRepositoryConnection } from '../../support/factories.js';

const ddb = mockClient(DynamoDBDocumentClient);
const organisation = buildOrganisation();
const now = new Date('2026-11-27T06:00:00.000Z');
const TOKEN = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';

const scratch = mkdtempSync(join(tmpdir(), 'admin-repository-'));
const tokenFile = join(scratch, 'token');
writeFileSync(tokenFile, `${TOKEN}\n`);
const gitRepository = join(scratch, 'evidence');
mkdirSync(join(gitRepository, '.git'), { recursive: true });
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

beforeEach(() => {
  ddb.reset();
  resetDdbClient();
  ddb.on(GetCommand).resolves({});
  ddb.on(GetCommand, { Key: keys.organisation(organisation.id) }).resolves({ Item: { ...keys.organisation(organisation.id), ...organisation } });
  ddb.on(PutCommand).resolves({});
  vi.stubEnv('TOKEN_HASH_SECRET', 'k'.repeat(48));
  resetSettings();
  resetTokenHashSecret();
  // The CLI checks where a GitHub host resolves; github.com answers a public address here, whatever the machine's DNS.
  vi.spyOn(dns.promises, 'lookup').mockResolvedValue([{ address: '140.82.112.3', family: 4 }] as never);
});
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  resetSettings();
  resetTokenHashSecret();
});

const connect = (over: { provider?: string; url?: string; tokenFile?: string; name?: string } = {}) =>
  connectRepository({ organisationId: organisation.id, provider: 'github', url: 'https://github.com/acme/widgets.git', ...over }, now);
const puts = () => ddb.commandCalls(PutCommand).map((c) => c.args[0].input);
const refused = async (attempt: Promise<unknown>, message: string | RegExp) => {
  await expect(attempt).rejects.toThrow(RepositoryRefusedError);
  await expect(attempt).rejects.toThrow(message);
};

describe('connectionView', () => {
  it('shows a connection without its sealed token, saying that it has one', () => {
    const c = buildRepositoryConnection({ token_sealed: 'v1.sealed' });
    const { token_sealed: _sealed, ...shown } = c;
    expect(connectionView(c)).toEqual({ ...shown, has_token: true });
  });

  it('says when a connection has no token', () => {
    expect(connectionView(buildRepositoryConnection()).has_token).toBe(false);
  });
});

describe('connectRepository', () => {
  it('connects a GitHub repository under its canonical URL, its API base and its owner/name', async () => {
    expect(await connect()).toEqual({
      id: expect.stringMatching(/^[0-9A-Z]{26}$/),
      organisation_id: organisation.id,
      provider: 'github',
      url: 'https://github.com/acme/widgets',
      name: 'acme/widgets',
      created_at: now.toISOString(),
      api_url: 'https://api.github.com',
    });
  });

  it('stores the connection under its organisation, only where none is', async () => {
    const connection = await connect();
    expect(puts()[0]).toEqual({
      TableName: tableName(),
      Item: { ...keys.repositoryConnection(organisation.id, connection.id), entity: 'repository-connection', ...connection },
      ConditionExpression: 'attribute_not_exists(#cnd0)',
      ExpressionAttributeNames: { '#cnd0': 'PK' },
    });
  });

  it('keeps the token of the token file sealed, for this connection only', async () => {
    const connection = await connect({ tokenFile });
    expect([connection.token_sealed?.includes(TOKEN), await openToken(connection)]).toEqual([false, TOKEN]);
  });

  it('audits the connection as the operator’s, saying whether it has a token and never what it is', async () => {
    const connection = await connect({ tokenFile });
    expect(puts()[1]).toEqual({
      TableName: tableName(),
      Item: {
        ...keys.audit(organisation.id, '2026-11-27', expect.stringMatching(/^2026-11-27T06:00:00.000Z#/)),
        entity: 'audit',
        id: expect.any(String),
        at: now.toISOString(),
        kind: 'REPOSITORY_CONNECTED',
        request_id: `cli-${connection.id}-${now.getTime()}`,
        method: 'CLI',
        route: 'admin repository connect',
        status: 0,
        actor_id: 'operator',
        organisation_id: organisation.id,
        target: { organisation: organisation.id, repository: connection.id },
        details: { provider: 'github', has_token: true },
      },
    });
  });

  it('names the connection as the operator asks', async () => {
    expect((await connect({ name: ' Policies ' })).name).toBe('Policies');
  });

  it('connects a GitHub Enterprise Server repository with the API base of its host', async () => {
    expect((await connect({ url: 'https://203.0.113.10/platform/ism' })).api_url).toBe('https://203.0.113.10/api/v3');
  });

  it('connects a local git repository by its absolute path, without a trailing slash, named after its directory', async () => {
    const connection = await connect({ provider: 'local', url: `${gitRepository}/` });
    expect([connection.url, connection.name, 'api_url' in connection]).toEqual([gitRepository, 'evidence', false]);
  });

  it.each([
    ['an unknown provider', { provider: 'gitlab' }, '--provider must be one of github, local'],
    ['a GitHub URL over http', { url: 'http://github.com/acme/widgets' }, /^--url must be https:\/\/github.com/],
    ['a GitHub URL that names no repository', { url: 'https://github.com/acme/widgets/tree/main' }, /^--url must be/],
    ['a GitHub host that is a loopback address', { url: 'https://127.0.0.1/acme/widgets' }, '--url host 127.0.0.1 is a loopback address'],
    ['a relative local path', { provider: 'local', url: 'repos/evidence' }, '--url of a local repository must be an absolute path'],
    ['a local directory that is no git repository', { provider: 'local', url: scratch }, `${scratch} is not a git repository`],
    ['a token for a local repository', { provider: 'local', url: gitRepository, tokenFile }, '--token-file is for github connections only'],
    ['a token file that cannot be read', { tokenFile: join(scratch, 'missing') }, `cannot read --token-file ${join(scratch, 'missing')}`],
    ['a blank name', { name: ' ' }, '--name must be one line of 1 to 200 characters'],
  ])('refuses %s, storing nothing', async (_label, input, message) => {
    await refused(connect(input), message);
    expect(puts()).toEqual([]);
  });

  it('refuses a GitHub host whose name resolves inside the network', async () => {
    vi.mocked(dns.promises.lookup).mockResolvedValue([{ address: '10.0.0.5', family: 4 }] as never);
    await refused(connect({ url: 'https://git.internal.example/acme/widgets' }), '--url host git.internal.example resolves to 10.0.0.5, a private address');
  });

  it('refuses a token file of more than one token without quoting it', async () => {
    const file = join(scratch, 'two-tokens');
    writeFileSync(file, `${TOKEN}\nsecond-line-secret\n`);
    const error = (await connect({ tokenFile: file }).catch((e: unknown) => e)) as Error;
    expect([error instanceof RepositoryRefusedError, error.message.includes(TOKEN), error.message.includes('second-line-secret')]).toEqual([
      true,
      false,
      false,
    ]);
  });

  it('refuses an organisation that does not exist, storing nothing', async () => {
    const other = buildOrganisation();
    await refused(
      connectRepository({ organisationId: other.id, provider: 'github', url: 'https://github.com/acme/widgets' }, now),
      `no organisation ${other.id}`,
    );
    expect(puts()).toEqual([]);
  });
});

describe('listConnections', () => {
  it('answers the organisation’s connections', async () => {
    const connection = buildRepositoryConnection({ organisation_id: organisation.id });
    ddb
      .on(QueryCommand)
      .resolves({ Items: [{ ...keys.repositoryConnection(organisation.id, connection.id), entity: 'repository-connection', ...connection }] });
    expect(await listConnections(organisation.id)).toEqual([connection]);
  });

  it('refuses an organisation that does not exist, reading no connections', async () => {
    await refused(listConnections('01M84T2AZS9C8TZ6EGZG2RXYH0'), 'no organisation 01M84T2AZS9C8TZ6EGZG2RXYH0');
    expect(ddb.commandCalls(QueryCommand)).toEqual([]);
  });
});

describe('removeConnection', () => {
  const connection = buildRepositoryConnection({ organisation_id: organisation.id });

  it('deletes the connection and audits its removal', async () => {
    ddb.on(DeleteCommand).resolves({ Attributes: { ...keys.repositoryConnection(organisation.id, connection.id), ...connection } });
    await removeConnection(organisation.id, connection.id, now);
    expect([ddb.commandCalls(DeleteCommand).map((c) => c.args[0].input), puts().map((p) => [p.Item?.kind, p.Item?.route, p.Item?.details])]).toEqual([
      [{ TableName: tableName(), Key: keys.repositoryConnection(organisation.id, connection.id), ReturnValues: 'ALL_OLD' }],
      [['REPOSITORY_REMOVED', 'admin repository remove', { provider: 'github', has_token: false }]],
    ]);
  });

  it('refuses a connection that is not there, auditing nothing', async () => {
    ddb.on(DeleteCommand).resolves({});
    await refused(removeConnection(organisation.id, connection.id, now), `no repository connection ${connection.id} in organisation ${organisation.id}`);
    expect(puts()).toEqual([]);
  });
});
