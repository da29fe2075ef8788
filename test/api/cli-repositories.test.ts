import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newUlid } from '../../lib/domain/ids.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openToken, sealToken } from '../../lib/repositories/credentials.js';
import { resolveLocalFile } from '../../lib/repositories/local.js';
import { resolveFile, useLocalRepositories } from '../../lib/repositories/resolve.js';
import { getRepositoryConnection, listRepositoryConnections, putRepositoryConnection } from '../../lib/store/repositories.js';
import { fixtures } from '../support/api.js';
import { buildRepositoryConnection } from '../support/factories.js';
import { operatorCli, type CliResult } from '../support/cli.js';
import { testRepository, type TestRepository } from '../support/git.js';

/** `admin repository connect | list | remove`: connections configured outside the API (issue 12, Repository files). */
const TOKEN = 'github_pat_11CLITEST0123456789_clitestclitestclitest';

let admin: (...args: string[]) => CliResult;
let organisationId: string;
let repo: TestRepository;
let scratch: string;
let tokenFile: string;

beforeAll(async () => {
  admin = await operatorCli();
  organisationId = await fixtures.organisation(await fixtures.user());
  repo = await testRepository();
  await repo.commit('main', { 'docs/boundary.md': '# Boundary\n' }, 'first');
  scratch = mkdtempSync(join(tmpdir(), 'cli-repositories-'));
  tokenFile = join(scratch, 'token');
  writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
});

afterAll(() => {
  repo?.remove();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const connect = (...args: string[]) => admin('repository', 'connect', '--organisation', organisationId, ...args);

describe('operator CLI: repository connect', () => {
  it('connects a GitHub repository, keeping its token sealed and never printing it', async () => {
    const out = connect('--provider', 'github', '--url', 'https://github.com/acme/widgets.git', '--token-file', tokenFile);
    expect(out.code).toBe(0);
    expect(out.stdout + out.stderr).not.toContain(TOKEN);
    const view = out.json();
    expect(view).toMatchObject({
      organisation_id: organisationId,
      provider: 'github',
      url: 'https://github.com/acme/widgets',
      name: 'acme/widgets',
      api_url: 'https://api.github.com',
      has_token: true,
    });
    expect(view).not.toHaveProperty('token_sealed');
    const stored = await getRepositoryConnection(organisationId, view.id);
    expect(JSON.stringify(stored)).not.toContain(TOKEN);
    expect(await openToken(stored!)).toBe(TOKEN);
  });

  it('connects a public GitHub repository without a token, under a name of the operator’s choosing', async () => {
    const out = connect('--provider', 'github', '--url', 'https://github.com/acme/public-docs', '--name', 'Public docs');
    expect(out.json()).toMatchObject({ name: 'Public docs', has_token: false });
    expect(await getRepositoryConnection(organisationId, out.json().id)).not.toHaveProperty('token_sealed');
  });

  it('connects a GitHub Enterprise Server repository with its API base', () => {
    const out = connect('--provider', 'github', '--url', 'https://git.example.gov.au/platform/ism');
    expect(out.json()).toMatchObject({ api_url: 'https://git.example.gov.au/api/v3' });
  });

  it('connects a local git repository whose files the local provider then reads', async () => {
    const out = connect('--provider', 'local', '--url', `${repo.dir}/`);
    expect(out.code).toBe(0);
    expect(out.json()).toMatchObject({ provider: 'local', url: repo.dir, has_token: false });
    const stored = await getRepositoryConnection(organisationId, out.json().id);
    useLocalRepositories(resolveLocalFile);
    expect((await resolveFile(stored!, 'docs/boundary.md', 'main')).bytes.toString()).toBe('# Boundary\n');
  });

  it.each([
    ['an unknown provider', /--provider/, () => ['--provider', 'gitlab', '--url', 'https://gitlab.com/a/b']],
    ['a GitHub URL over http', /--url/, () => ['--provider', 'github', '--url', 'http://github.com/acme/widgets']],
    ['a GitHub URL that names no repository', /--url/, () => ['--provider', 'github', '--url', 'https://github.com/acme/widgets/tree/main']],
    ['a relative local path', /absolute path/, () => ['--provider', 'local', '--url', 'repos/evidence']],
    ['a local directory that is no git repository', /not a git repository/, () => ['--provider', 'local', '--url', scratch]],
    ['a token for a local repository', /--token-file/, () => ['--provider', 'local', '--url', repo.dir, '--token-file', tokenFile]],
    [
      'a token file that does not exist',
      /cannot read --token-file/,
      () => ['--provider', 'github', '--url', 'https://github.com/acme/widgets', '--token-file', join(scratch, 'missing')],
    ],
    ['a blank name', /--name/, () => ['--provider', 'github', '--url', 'https://github.com/acme/widgets', '--name', ' ']],
  ])('refuses %s with one line on stderr and exit code 2', (_label, message, args) => {
    const out = connect(...args());
    expect(out.code).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr).toMatch(message);
    expect(out.stderr.split('\n')).toHaveLength(1);
  });

  it.each([
    'https://169.254.169.254/acme/widgets',
    'https://localhost/acme/widgets',
    'https://[::ffff:127.0.0.1]/acme/widgets',
    'https://[fd00:ec2::254]/acme/widgets',
    'https://2130706433/acme/widgets',
  ])('refuses the GitHub Enterprise host of %s, an address inside the network, storing nothing', async (url) => {
    const before = await listRepositoryConnections(organisationId);
    const out = connect('--provider', 'github', '--url', url);
    expect(out.code).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr).toMatch(/^--url host .+ (is|resolves to) .+ address: repositories are reached across the internet only$/);
    expect(await listRepositoryConnections(organisationId)).toEqual(before);
  });

  it('refuses a token file of more than one token without quoting it', () => {
    const file = join(scratch, 'two-lines');
    writeFileSync(file, `${TOKEN}\nsecond-line-secret\n`, { mode: 0o600 });
    const out = connect('--provider', 'github', '--url', 'https://github.com/acme/widgets', '--token-file', file);
    expect(out.code).toBe(2);
    expect(out.stderr).not.toContain(TOKEN);
    expect(out.stderr).not.toContain('second-line-secret');
  });

  it('refuses an organisation that does not exist', () => {
    const out = admin('repository', 'connect', '--organisation', newUlid(), '--provider', 'github', '--url', 'https://github.com/acme/widgets');
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/^no organisation /);
  });
});

describe('operator CLI: repository list and remove', () => {
  /** A connection as `repository connect` stores one (the tests above run the command). */
  const stored = async (over: { organisation_id: string; url: string }, token?: string) => {
    const connection = buildRepositoryConnection(over);
    await putRepositoryConnection(token === undefined ? connection : { ...connection, token_sealed: await sealToken(token, connection) });
    return connection.id;
  };

  it('lists an organisation’s connections without their tokens', async () => {
    const other = await fixtures.organisation(await fixtures.user());
    const id = await stored({ organisation_id: other, url: 'https://github.com/acme/x' }, TOKEN);
    const out = admin('repository', 'list', '--organisation', other);
    expect(out.code).toBe(0);
    expect(out.json()).toEqual({ organisation_id: other, connections: [expect.objectContaining({ id, url: 'https://github.com/acme/x', has_token: true })] });
    expect(out.stdout).not.toContain('token_sealed');
  });

  it('removes a connection, and refuses to remove it twice', async () => {
    const id = await stored({ organisation_id: organisationId, url: 'https://github.com/acme/gone' });
    expect(admin('repository', 'remove', '--organisation', organisationId, '--id', id).json()).toEqual({ id, removed: true });
    expect(await getRepositoryConnection(organisationId, id)).toBeUndefined();
    const again = admin('repository', 'remove', '--organisation', organisationId, '--id', id);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/no repository connection/);
  });
});
