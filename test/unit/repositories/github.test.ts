import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetSettings } from '../../../lib/config.js';
import type { RepositoryConnection } from '../../../lib/domain/repositories.js';
import { RepositoryFileNotFoundError, type RepositoryUnavailableError, RepositoryUpstreamError } from '../../../lib/repositories/errors.js';
import { resolveGitHubFile } from '../../../lib/repositories/github.js';
import { type GitHubStub, type Interceptor, OWNER_REPO, startGitHubStub } from '../../support/github-stub.js';

/**
 * The github provider called directly against the stub of GitHub's REST API: the requests it makes
 * and how it reads GitHub's answers. test/integration/repositories-github.test.ts drives it
 * through resolveFile with a sealed token, timeouts and outages.
 */
const COMMIT = 'c'.repeat(40);
const LARGE = randomBytes(1100 * 1024);
const LIMITS = { maxBytes: 4 * 1024 * 1024, timeoutMs: 5_000 };

let stub: GitHubStub;
let connection: RepositoryConnection;

beforeAll(async () => {
  process.env.TEST_ONLY_ALLOWED_REPOSITORY_ADDRESSES = '127.0.0.1';
  resetSettings();
  stub = await startGitHubStub();
  stub.commits.set(COMMIT, { 'README.md': Buffer.from('read me\n'), 'large.bin': LARGE });
  stub.refs.set('main', COMMIT);
  connection = {
    id: 'REPO',
    organisation_id: 'ORG',
    provider: 'github',
    url: 'https://github.com/acme/widgets',
    name: 'acme/widgets',
    created_at: '2026-01-01T00:00:00.000Z',
    api_url: stub.apiUrl,
  };
});
afterEach(() => {
  stub.intercept(undefined);
  stub.requests.length = 0;
});
afterAll(async () => {
  await stub?.close();
  delete process.env.TEST_ONLY_ALLOWED_REPOSITORY_ADDRESSES;
  resetSettings();
});

const resolve = (path = 'README.md', over: Partial<RepositoryConnection> = {}) => resolveGitHubFile({ ...connection, ...over }, path, 'main', LIMITS);
const failure = (path?: string) => resolve(path).catch((e: unknown) => e);
/** Answers the requests under `prefix` itself, with a status, headers and a body as sent. */
const answer =
  (prefix: string, status: number, headers: Record<string, string>, body: string | Buffer): Interceptor =>
  ({ path }, response) => {
    if (!path.startsWith(OWNER_REPO + prefix)) return false;
    response.writeHead(status, headers);
    response.end(body);
    return true;
  };
const entry = (over: Record<string, unknown>) =>
  answer('/contents/', 200, { 'content-type': 'application/json' }, JSON.stringify({ type: 'file', size: 8, sha: 'a'.repeat(40), ...over }));

describe('resolveGitHubFile: requests', () => {
  it('refuses a connection whose URL names no GitHub repository, asking nothing', async () => {
    expect(await resolve('README.md', { url: 'https://github.com/acme' }).catch((e: unknown) => e)).toBeInstanceOf(RepositoryUpstreamError);
    expect(stub.requests).toEqual([]);
  });

  it('asks for the commit id, the contents entry at it and the raw blob, each in its media type, naming the API version and itself', async () => {
    await resolve('large.bin');
    expect(stub.requests.map((r) => [r.path, r.headers.accept, r.headers['x-github-api-version'], r.headers['user-agent']])).toEqual([
      [`${OWNER_REPO}/commits/main`, 'application/vnd.github.sha', '2022-11-28', 'assessment-operations-api'],
      [`${OWNER_REPO}/contents/large.bin?ref=${COMMIT}`, 'application/vnd.github+json', '2022-11-28', 'assessment-operations-api'],
      [expect.stringMatching(/\/git\/blobs\/[0-9a-f]{40}$/), 'application/vnd.github.raw+json', '2022-11-28', 'assessment-operations-api'],
    ]);
  });

  it('reads a file up to 1 MB from its contents entry, in two requests', async () => {
    const file = await resolve();
    expect({ text: file.bytes.toString(), commit: file.commit, requests: stub.requests.length }).toEqual({ text: 'read me\n', commit: COMMIT, requests: 2 });
  });
});

describe('resolveGitHubFile: answers', () => {
  it('answers a 409 (a repository with no commits) as no such file', async () => {
    stub.intercept(answer('/commits/', 409, { 'content-type': 'application/json' }, '{"message":"Git Repository is empty."}'));
    expect(await failure()).toBeInstanceOf(RepositoryFileNotFoundError);
  });

  it('waits until the HTTP date a retry-after names', async () => {
    stub.intercept(answer('/commits/', 503, { 'retry-after': new Date(Date.now() + 90_000).toUTCString() }, ''));
    const delay = ((await failure()) as RepositoryUnavailableError).retryAfterSeconds!;
    expect(delay >= 88 && delay <= 91).toBe(true);
  });

  it('waits an hour at most', async () => {
    stub.intercept(answer('/commits/', 429, { 'retry-after': '86400' }, ''));
    expect(await failure()).toMatchObject({ name: 'RepositoryUnavailableError', retryAfterSeconds: 3600 });
  });

  it('waits a second at least', async () => {
    stub.intercept(answer('/commits/', 429, { 'retry-after': '0' }, ''));
    expect(await failure()).toMatchObject({ name: 'RepositoryUnavailableError', retryAfterSeconds: 1 });
  });

  it('answers a 403 whose body is no JSON as a refusal, not a rate limit', async () => {
    stub.intercept(answer('/commits/', 403, { 'content-type': 'text/html' }, '<html>Forbidden</html>'));
    expect(await failure()).toBeInstanceOf(RepositoryUpstreamError);
  });

  it('refuses a commit answer longer than 4 KB, though it holds a commit id', async () => {
    stub.intercept(answer('/commits/', 200, {}, `${COMMIT}${' '.repeat(8 * 1024)}`));
    expect(await failure()).toBeInstanceOf(RepositoryUpstreamError);
  });

  it.each([
    ['no size', { size: undefined }],
    ['a negative size', { size: -1 }],
    ['a fractional size', { size: 1.5 }],
    ['no blob id', { sha: undefined }],
    ['a blob id that is no SHA-1', { sha: 'main' }],
  ])('refuses a contents entry with %s', async (_label, over) => {
    stub.intercept(entry(over));
    expect(await failure()).toBeInstanceOf(RepositoryUpstreamError);
  });

  it.each(['submodule', 'symlink', 'dir'])('answers an entry of type %s as no file', async (type) => {
    stub.intercept(entry({ type }));
    expect(await failure()).toBeInstanceOf(RepositoryFileNotFoundError);
  });
});
