import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetTokenHashSecret } from '../../lib/auth/secret.js';
import { resetSettings } from '../../lib/config.js';
import type { RepositoryConnection } from '../../lib/domain/repositories.js';
import { sealToken } from '../../lib/repositories/credentials.js';
import {
  RepositoryFileNotFoundError,
  RepositoryFileTooLargeError,
  RepositoryTimeoutError,
  RepositoryUnavailableError,
  RepositoryUpstreamError,
} from '../../lib/repositories/errors.js';
import { resolveFile, type ResolveOptions } from '../../lib/repositories/resolve.js';
import { buildRepositoryConnection } from '../support/factories.js';
import { OWNER_REPO, startGitHubStub, type GitHubStub, type Interceptor } from '../support/github-stub.js';

/** The github provider against a stub of GitHub's REST API on 127.0.0.1. */
const TOKEN = 'github_pat_11STUB0123456789_stubstubstubstubstub';
const FIRST = '1'.repeat(40);
const SECOND = '2'.repeat(40);
const LARGE = randomBytes(1536 * 1024);

let stub: GitHubStub;
let connection: RepositoryConnection;

beforeAll(async () => {
  process.env.TOKEN_HASH_SECRET = randomBytes(32).toString('hex');
  process.env.TEST_ONLY_ALLOWED_REPOSITORY_ADDRESSES = '127.0.0.1';
  resetSettings();
  resetTokenHashSecret();
  stub = await startGitHubStub();
  stub.commits.set(FIRST, { 'README.md': Buffer.from('version one\n') });
  stub.commits.set(SECOND, {
    'README.md': Buffer.from('version two\n'),
    'docs/Security Plan #1.md': Buffer.from('# Plan\n'),
    'docs/large.bin': LARGE,
    'empty.txt': Buffer.alloc(0),
  });
  for (const [ref, sha] of [
    ['main', SECOND],
    ['v1', FIRST],
    ['release/2025', FIRST],
    [FIRST, FIRST],
  ])
    stub.refs.set(ref!, sha!);
  const owner = { organisation_id: 'ORG', id: 'REPO' };
  connection = buildRepositoryConnection({
    ...owner,
    url: 'https://github.com/acme/widgets',
    api_url: stub.apiUrl,
    token_sealed: await sealToken(TOKEN, owner),
  });
});

afterEach(() => {
  stub.intercept(undefined);
  stub.requests.length = 0;
});

afterAll(async () => {
  await stub?.close();
  delete process.env.TOKEN_HASH_SECRET;
  delete process.env.TEST_ONLY_ALLOWED_REPOSITORY_ADDRESSES;
  resetSettings();
  resetTokenHashSecret();
});

const resolve = (ref: string, path = 'README.md', options: ResolveOptions = {}) => resolveFile(connection, path, ref, options);
const failure = (ref: string, path?: string, options?: ResolveOptions) =>
  resolve(ref, path, options).then(
    () => undefined,
    (e: unknown) => e,
  );
/** Answers every request of the repository whose path starts with `prefix` with a status and headers. */
const answerWith =
  (prefix: string, status: number, headers: Record<string, string> = {}, body: unknown = { message: 'stubbed' }): Interceptor =>
  ({ path }, response) => {
    if (!path.startsWith(OWNER_REPO + prefix)) return false;
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
    return true;
  };

describe('github repository provider: refs and files', () => {
  it('resolves a branch to its commit and reads the file there, with the token as a bearer credential', async () => {
    const file = await resolve('main');
    expect(file).toMatchObject({ commit: SECOND, path: 'README.md', size: 12 });
    expect(file.bytes.toString()).toBe('version two\n');
    expect(file.sha256).toBe(createHash('sha256').update('version two\n').digest('hex'));
    expect(stub.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);
    expect(stub.requests[0]).toMatchObject({ path: `${OWNER_REPO}/commits/main`, headers: { accept: 'application/vnd.github.sha' } });
    expect(stub.requests[0]!.headers['x-github-api-version']).toBe('2022-11-28');
  });

  it('reads the older content through a tag: the contents are asked at the resolved commit, not at the ref', async () => {
    expect(await resolve('v1')).toMatchObject({ commit: FIRST });
    expect((await resolve('v1')).bytes.toString()).toBe('version one\n');
    expect(stub.requests[1]!.path).toBe(`${OWNER_REPO}/contents/README.md?ref=${FIRST}`);
  });

  it('resolves a branch whose name holds a slash and a full commit id', async () => {
    expect((await resolve('release/2025')).commit).toBe(FIRST);
    expect((await resolve(FIRST)).commit).toBe(FIRST);
  });

  it('percent-encodes each path segment', async () => {
    expect((await resolve('main', 'docs/Security Plan #1.md')).bytes.toString()).toBe('# Plan\n');
    expect(stub.requests[1]!.path).toBe(`${OWNER_REPO}/contents/docs/Security%20Plan%20%231.md?ref=${SECOND}`);
  });

  it('reads a file above 1 MB from the raw blob', async () => {
    const file = await resolve('main', 'docs/large.bin');
    expect(file.bytes.equals(LARGE)).toBe(true);
    expect(file.sha256).toBe(createHash('sha256').update(LARGE).digest('hex'));
    expect(stub.requests[2]).toMatchObject({ headers: { accept: 'application/vnd.github.raw+json' } });
    expect(stub.requests[2]!.path).toMatch(new RegExp(`^${OWNER_REPO}/git/blobs/[0-9a-f]{40}$`));
  });

  it('reads an empty file', async () => {
    expect(await resolve('main', 'empty.txt')).toMatchObject({ size: 0, sha256: createHash('sha256').digest('hex') });
  });

  it('sends no credential for a public repository', async () => {
    await resolveFile({ ...connection, token_sealed: undefined }, 'README.md', 'main');
    expect(stub.requests.map((r) => r.headers.authorization)).toEqual([undefined, undefined]);
  });

  it('answers 404 for a ref that names no commit (GitHub says 422)', async () => {
    expect(await failure('no-such-branch')).toBeInstanceOf(RepositoryFileNotFoundError);
  });

  it('answers 404 for a path absent at the commit', async () => {
    expect(await failure('v1', 'docs/large.bin')).toBeInstanceOf(RepositoryFileNotFoundError);
  });

  it('answers 404 for a directory', async () => {
    expect(await failure('main', 'docs')).toBeInstanceOf(RepositoryFileNotFoundError);
  });

  it('refuses a file above the limit from its entry, before any of its bytes move', async () => {
    const refused = await failure('main', 'docs/large.bin', { maxBytes: 1024 * 1024 });
    expect(refused).toBeInstanceOf(RepositoryFileTooLargeError);
    expect(refused).toMatchObject({ size: LARGE.length });
    expect(stub.requests.some((r) => r.path.includes('/git/blobs/'))).toBe(false);
  });
});

describe('github repository provider: throttling and outages (503)', () => {
  it('answers a spent primary rate limit (403, x-ratelimit-remaining 0) with the delay until its reset', async () => {
    const reset = String(Math.floor(Date.now() / 1000) + 120);
    stub.intercept(answerWith('/commits/', 403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset }, { message: 'API rate limit exceeded' }));
    const refused = await failure('main');
    expect(refused).toBeInstanceOf(RepositoryUnavailableError);
    expect((refused as RepositoryUnavailableError).retryAfterSeconds).toBeGreaterThanOrEqual(119);
    expect((refused as RepositoryUnavailableError).retryAfterSeconds).toBeLessThanOrEqual(121);
  });

  it('answers a 429 with its retry-after', async () => {
    stub.intercept(answerWith('/contents/', 429, { 'retry-after': '30', 'x-ratelimit-remaining': '0' }));
    expect(await failure('main')).toMatchObject({ name: 'RepositoryUnavailableError', retryAfterSeconds: 30 });
  });

  it('answers a secondary rate limit that names no delay with GitHub’s advice of a minute', async () => {
    stub.intercept(answerWith('/commits/', 403, {}, { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.' }));
    expect(await failure('main')).toMatchObject({ name: 'RepositoryUnavailableError', retryAfterSeconds: 60 });
  });

  it('answers a 503 with its retry-after', async () => {
    stub.intercept(answerWith('/commits/', 503, { 'retry-after': '5' }));
    expect(await failure('main')).toMatchObject({ name: 'RepositoryUnavailableError', retryAfterSeconds: 5 });
  });

  it.each([502, 504])('answers a %i as unavailable, without a delay it was not given', async (status) => {
    stub.intercept(answerWith('/contents/', status));
    const refused = await failure('main');
    expect(refused).toBeInstanceOf(RepositoryUnavailableError);
    expect((refused as RepositoryUnavailableError).retryAfterSeconds).toBeUndefined();
  });

  it('answers a refused connection as unavailable', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const { port } = closed.address() as AddressInfo;
    await new Promise((r) => closed.close(r));
    const refused = await resolveFile({ ...connection, api_url: `http://127.0.0.1:${port}` }, 'README.md', 'main').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RepositoryUnavailableError);
  });
});

describe('github repository provider: timeouts (504)', () => {
  it('answers a provider that does not answer before the deadline', async () => {
    stub.intercept(({ path }, response) => {
      if (!path.includes('/contents/')) return false;
      setTimeout(() => response.destroyed || response.end('{}'), 2_000).unref();
      return true;
    });
    const started = Date.now();
    expect(await failure('main', 'README.md', { timeoutMs: 300 })).toBeInstanceOf(RepositoryTimeoutError);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('answers a body that stalls past the deadline', async () => {
    stub.intercept(({ path }, response) => {
      if (!path.includes('/git/blobs/')) return false;
      response.writeHead(200, { 'content-type': 'application/vnd.github.raw+json' });
      response.write(LARGE.subarray(0, 1024));
      return true;
    });
    expect(await failure('main', 'docs/large.bin', { timeoutMs: 500 })).toBeInstanceOf(RepositoryTimeoutError);
  });
});

describe('github repository provider: other upstream failures (502)', () => {
  it.each([
    [500, 'an internal error'],
    [401, 'a refused credential'],
    [400, 'an unexpected client error'],
  ])('answers a %i (%s)', async (status) => {
    stub.intercept(answerWith('/commits/', status));
    expect(await failure('main')).toBeInstanceOf(RepositoryUpstreamError);
  });

  it('answers a 403 that is no rate limit (the token may not read the repository)', async () => {
    stub.intercept(answerWith('/contents/', 403, { 'x-ratelimit-remaining': '4999' }, { message: 'Resource not accessible by personal access token' }));
    expect(await failure('main')).toBeInstanceOf(RepositoryUpstreamError);
  });

  it('follows no redirect, so the token never reaches another address', async () => {
    stub.intercept(({ path }, response) => {
      if (!path.includes('/commits/')) return false;
      response.writeHead(301, { location: '/repositories/42/commits/main' });
      response.end();
      return true;
    });
    expect(await failure('main')).toBeInstanceOf(RepositoryUpstreamError);
    expect(stub.requests.map((r) => r.path)).toEqual([`${OWNER_REPO}/commits/main`]);
  });

  it('answers a commit answer that is no commit id', async () => {
    stub.intercept(({ path }, response) => {
      if (!path.includes('/commits/')) return false;
      response.end('<html>maintenance</html>');
      return true;
    });
    expect(await failure('main')).toBeInstanceOf(RepositoryUpstreamError);
  });

  it('answers a contents entry that is not JSON', async () => {
    stub.intercept(({ path }, response) => {
      if (!path.includes('/contents/')) return false;
      response.end('{"type": "file", ');
      return true;
    });
    expect(await failure('main')).toBeInstanceOf(RepositoryUpstreamError);
  });

  it.each(['null', '"file"'])('answers a contents entry that is no object: %s', async (answer) => {
    stub.intercept(({ path }, response) => {
      if (!path.includes('/contents/')) return false;
      response.end(answer);
      return true;
    });
    expect(await failure('main')).toBeInstanceOf(RepositoryUpstreamError);
  });

  it('answers bytes that are not the blob GitHub named', async () => {
    stub.intercept(({ path }, response) => {
      if (!path.includes('/git/blobs/')) return false;
      const altered = Buffer.from(LARGE);
      altered[0]! ^= 0xff;
      response.end(altered);
      return true;
    });
    expect(await failure('main', 'docs/large.bin')).toBeInstanceOf(RepositoryUpstreamError);
  });

  it('stops reading a blob longer than its entry said', async () => {
    stub.intercept(({ path }, response) => {
      if (!path.includes('/git/blobs/')) return false;
      response.end(Buffer.concat([LARGE, LARGE]));
      return true;
    });
    expect(await failure('main', 'docs/large.bin')).toBeInstanceOf(RepositoryUpstreamError);
  });

  it('answers a connection whose sealed token no longer opens', async () => {
    const moved = { ...connection, id: 'ANOTHER' };
    expect(await resolveFile(moved, 'README.md', 'main').catch((e: unknown) => e)).toBeInstanceOf(RepositoryUpstreamError);
    expect(stub.requests).toEqual([]);
  });
});
