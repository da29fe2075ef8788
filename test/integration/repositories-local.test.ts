import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RepositoryFileNotFoundError, RepositoryFileTooLargeError, RepositoryUpstreamError } from '../../lib/repositories/errors.js';
import { resolveLocalFile } from '../../lib/repositories/local.js';
import { resolveFile, useLocalRepositories } from '../../lib/repositories/resolve.js';
import { buildRepositoryConnection } from '../support/factories.js';
import { testRepository, type TestRepository } from '../support/git.js';

/** The local provider against repositories this file builds: every ref kind, and a file that changes between commits. */
let repo: TestRepository;
let bare: TestRepository;
let first: string;
let second: string;
let feature: string;
let annotated: string;

const connectionTo = (url: string) => buildRepositoryConnection({ provider: 'local', url });
const resolve = (ref: string, path = 'README.md', options = {}) => resolveFile(connectionTo(repo.dir), path, ref, options);
const text = async (ref: string, path?: string) => (await resolve(ref, path)).bytes.toString('utf8');

beforeAll(async () => {
  useLocalRepositories(resolveLocalFile);
  repo = await testRepository();
  first = await repo.commit('main', { 'README.md': 'version one\n', 'docs/policy.md': '# Policy\n' }, 'first');
  await repo.tag('v1', first);
  annotated = await repo.annotatedTag('release-1', first);
  second = await repo.commit(
    'main',
    {
      'README.md': 'version two\n',
      'docs/policy.md': '# Policy\n',
      'bin/run.sh': { executable: '#!/bin/sh\necho ok\n' },
      'current.md': { symlink: 'README.md' },
      'vendor/lib': { submodule: first },
      'large.bin': Buffer.alloc(2048, 7),
    },
    'second',
  );
  feature = await repo.commit('feature/boundary', { 'README.md': 'feature work\n' }, 'feature');
  bare = await testRepository({ bare: true });
  await bare.commit('main', { 'README.md': 'bare\n' }, 'bare');
});

afterAll(() => {
  repo?.remove();
  bare?.remove();
});

describe('local repository provider: refs', () => {
  it('resolves a branch to its newest commit and reads the file there', async () => {
    const file = await resolve('main');
    expect(file).toMatchObject({ commit: second, path: 'README.md', size: 12 });
    expect(file.bytes.toString()).toBe('version two\n');
    expect(file.sha256).toBe(createHash('sha256').update('version two\n').digest('hex'));
  });

  it('resolves a lightweight tag to the older commit and its older content', async () => {
    expect(await resolve('v1')).toMatchObject({ commit: first });
    expect(await text('v1')).toBe('version one\n');
  });

  it('peels an annotated tag to its commit, never answering the tag object id', async () => {
    const file = await resolve('release-1');
    expect(annotated).not.toBe(first);
    expect(file.commit).toBe(first);
  });

  it('resolves a full commit id', async () => {
    expect(await text(first)).toBe('version one\n');
  });

  it('resolves an abbreviated commit id to the full one', async () => {
    expect((await resolve(first.slice(0, 7))).commit).toBe(first);
  });

  it('resolves a branch whose name holds a slash', async () => {
    expect(await resolve('feature/boundary')).toMatchObject({ commit: feature });
  });

  it('prefers a tag to a branch of the same name, as git does', async () => {
    await repo.commit('v1', { 'README.md': 'a branch named like the tag\n' }, 'shadow');
    expect((await resolve('v1')).commit).toBe(first);
  });

  it.each(['no-such-branch', 'deadbeef', 'f'.repeat(40)])('answers 404 for a ref that names no commit: %s', async (ref) => {
    await expect(resolve(ref)).rejects.toBeInstanceOf(RepositoryFileNotFoundError);
  });

  it('answers 404 for a relative ref, which links never hold', async () => {
    await expect(resolve('main~1')).rejects.toBeInstanceOf(RepositoryFileNotFoundError);
  });
});

describe('local repository provider: files', () => {
  it('reads a file in a directory', async () => {
    expect(await text('main', 'docs/policy.md')).toBe('# Policy\n');
  });

  it('reads an executable file', async () => {
    expect(await text('main', 'bin/run.sh')).toBe('#!/bin/sh\necho ok\n');
  });

  it('answers 404 for a path absent at the commit, though present at another', async () => {
    await expect(resolve('v1', 'bin/run.sh')).rejects.toBeInstanceOf(RepositoryFileNotFoundError);
  });

  it.each([
    ['a directory', 'docs'],
    ['a symlink', 'current.md'],
    ['a submodule', 'vendor/lib'],
    ['a path below a file', 'README.md/x'],
    ['a path that climbs out', '../README.md'],
  ])('answers 404 for %s', async (_label, path) => {
    await expect(resolve('main', path)).rejects.toBeInstanceOf(RepositoryFileNotFoundError);
  });

  it('refuses a file above the limit, naming its size', async () => {
    const refused = await resolve('main', 'large.bin', { maxBytes: 2047 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RepositoryFileTooLargeError);
    expect(refused).toMatchObject({ size: 2048, limit: 2047 });
  });

  it('reads a file exactly at the limit', async () => {
    expect((await resolve('main', 'large.bin', { maxBytes: 2048 })).size).toBe(2048);
  });

  it('reads a bare repository', async () => {
    expect((await resolveFile(connectionTo(bare.dir), 'README.md', 'main')).bytes.toString()).toBe('bare\n');
  });

  it('answers 502 when the directory is no git repository any more', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'not-a-repo-'));
    try {
      await expect(resolveFile(connectionTo(empty), 'README.md', 'main')).rejects.toBeInstanceOf(RepositoryUpstreamError);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
