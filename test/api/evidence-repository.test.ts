import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteRepositoryConnection } from '../../lib/store/repositories.js';
import type { Api } from '../support/api.js';
import { arrangeEvidence, repositoryConnection } from '../support/evidence.js';
import { testRepository, type TestRepository } from '../support/git.js';
import { OWNER_REPO, startGitHubStub, type GitHubStub } from '../support/github-stub.js';
import { startProjectWorld, type World } from '../support/projects.js';

/**
 * The content and download of repository evidence links, against a local repository and a GitHub
 * stub on 127.0.0.1, which the test-only setting allows.
 */
let api: Api;
let world: World;
let repo: TestRepository;
let stub: GitHubStub;
let head: string;
const POLICY = '# Access control\n\nReviewed quarterly.\n';
const STUB_COMMIT = 'c'.repeat(40);

beforeAll(async () => {
  ({ api, world } = await startProjectWorld({ TEST_ONLY_ALLOWED_REPOSITORY_ADDRESSES: '127.0.0.1' }));
  repo = await testRepository();
  await repo.commit('main', { 'policies/access.md': '# Draft\n' }, 'draft');
  head = await repo.commit('main', { 'policies/access.md': POLICY, 'images/logo.bin': Buffer.from([0xff, 0xfe, 0x00, 0x01]) }, 'policy');
  stub = await startGitHubStub();
  stub.commits.set(STUB_COMMIT, { 'SECURITY.md': Buffer.from('# Security\n') });
  stub.refs.set('main', STUB_COMMIT);
});
afterAll(async () => {
  await api.stop();
  repo.remove();
  await stub.close();
});

async function linked(path: string, connection: { provider: 'local' | 'github'; url: string; api_url?: string }) {
  const a = await arrangeEvidence(api, world);
  const c = await repositoryConnection(world.op.organisationId, connection);
  const created = await a.link({ kind: 'repository_link', connection_id: c.id, path, ref: 'main' });
  expect(created.status).toBe(201);
  const url = (what: 'content' | 'download') => a.evidenceUrl(`/${created.body.data.id}/${what}`);
  const read = (what: 'content' | 'download') => api.request('GET', url(what), { token: a.token });
  return { a, read };
}

const local = () => ({ provider: 'local' as const, url: repo.dir });
const github = () => ({ provider: 'github' as const, url: 'https://github.com/acme/widgets', api_url: stub.apiUrl });

describe('repository evidence content', () => {
  it('answers the file at the commit its ref resolves to, naming the commit and the SHA-256', async () => {
    const { read } = await linked('policies/access.md', local());
    const res = await read('content');
    expect(res.status).toBe(200);
    expect(res.bytes.toString('utf8')).toBe(POLICY);
    expect(res.headers.get('x-repository-commit')).toBe(head);
    expect(res.headers.get('repr-digest')).toBe(`sha-256=:${createHash('sha256').update(POLICY).digest('base64')}:`);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('private, no-store');
  });

  it('downloads bytes that are not text as opaque bytes, as an attachment', async () => {
    const { read } = await linked('images/logo.bin', local());
    const res = await read('download');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment/);
  });

  it('is 404 when the path names no file at that commit', async () => {
    const { read } = await linked('policies/missing.md', local());
    expect((await read('content')).status).toBe(404);
  });

  it('reads a GitHub repository through its API', async () => {
    const { read } = await linked('SECURITY.md', github());
    const res = await read('content');
    expect(res.status).toBe(200);
    expect(res.bytes.toString('utf8')).toBe('# Security\n');
    expect(res.headers.get('x-repository-commit')).toBe(STUB_COMMIT);
  });

  it('maps GitHub throttling to 503, its failures to 502, as problem bodies that name no upstream detail', async () => {
    const { read } = await linked('SECURITY.md', github());
    stub.intercept((request, response) => {
      if (!request.path.startsWith(OWNER_REPO)) return false;
      response.writeHead(429, { 'retry-after': '30', 'content-type': 'application/json' });
      response.end('{"message":"secondary rate limit, token github_pat_secret"}');
      return true;
    });
    const throttled = await read('content');
    stub.intercept((_request, response) => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end('{"message":"internal"}');
      return true;
    });
    const failed = await read('content');
    stub.intercept(undefined);
    expect(throttled.status).toBe(503);
    expect(throttled.headers.get('content-type')).toBe('application/problem+json');
    expect(throttled.body.code).toBe('repository_unavailable');
    expect(JSON.stringify(throttled.body)).not.toMatch(/github_pat|secondary/);
    expect(failed.status).toBe(502);
    expect(failed.body.code).toBe('repository_upstream_error');
  });

  it('is 502 repository_address_not_allowed when the GitHub host is an address inside the network', async () => {
    const { read } = await linked('SECURITY.md', { ...github(), api_url: 'https://169.254.169.254/api/v3' });
    const res = await read('content');
    expect(res.status).toBe(502);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.body.code).toBe('repository_address_not_allowed');
    expect(JSON.stringify(res.body)).not.toContain('169.254');
  });

  it('is 404 once the connection is gone', async () => {
    const { a, read } = await linked('policies/access.md', local());
    const item = (await a.items())[0]!;
    await deleteRepositoryConnection(world.op.organisationId, (item as unknown as { source: { connection_id: string } }).source.connection_id);
    expect((await read('content')).status).toBe(404);
  });
});
