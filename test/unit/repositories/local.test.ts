import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fs from 'node:fs';
import git from 'isomorphic-git';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RepositoryFileNotFoundError } from '../../../lib/repositories/errors.js';
import { gitDirOf, resolveLocalFile } from '../../../lib/repositories/local.js';
import { type TestRepository, testRepository } from '../../support/git.js';

/**
 * Where the local provider finds a repository's git directory, and what it refuses to take for a
 * commit. test/integration/repositories-local.test.ts resolves every kind of ref and path through resolveFile.
 */
let repo: TestRepository;
let bare: TestRepository;
let plain: string;
let commit: string;

beforeAll(async () => {
  repo = await testRepository();
  commit = await repo.commit('main', { 'README.md': 'read me\n', 'docs/policy.md': '# Policy\n' }, 'first');
  bare = await testRepository({ bare: true });
  plain = mkdtempSync(join(tmpdir(), 'plain-'));
});
afterAll(() => {
  repo?.remove();
  bare?.remove();
  rmSync(plain, { recursive: true, force: true });
});

describe('gitDirOf', () => {
  it("answers a working tree's .git directory", async () => {
    expect(await gitDirOf(repo.dir)).toBe(join(repo.dir, '.git'));
  });

  it('answers a bare repository itself', async () => {
    expect(await gitDirOf(bare.dir)).toBe(bare.dir);
  });

  it('answers nothing for a directory that is no repository', async () => {
    expect(await gitDirOf(plain)).toBeUndefined();
  });

  it('answers nothing for a directory that looks bare but has no HEAD', async () => {
    const lookalike = join(plain, 'lookalike');
    mkdirSync(join(lookalike, 'objects'), { recursive: true });
    mkdirSync(join(lookalike, 'refs'));
    expect(await gitDirOf(lookalike)).toBeUndefined();
  });

  it('answers nothing for a path that does not exist', async () => {
    expect(await gitDirOf(join(plain, 'missing'))).toBeUndefined();
  });

  it('answers nothing when .git is a file (a worktree or submodule link)', async () => {
    const linked = join(plain, 'linked');
    mkdirSync(linked);
    writeFileSync(join(linked, '.git'), 'gitdir: /elsewhere\n');
    expect(await gitDirOf(linked)).toBeUndefined();
  });
});

describe('resolveLocalFile: refs that name no commit', () => {
  const refused = (ref: string) => resolveLocalFile(repo.dir, 'README.md', ref, 1024).catch((e: unknown) => e);

  it("answers the id of a commit's tree as no such file", async () => {
    const { commit: parsed } = await git.readCommit({ fs, gitdir: repo.gitdir, oid: commit });
    expect(await refused(parsed.tree)).toBeInstanceOf(RepositoryFileNotFoundError);
  });

  it("answers a blob's id as no such file", async () => {
    const blob = await git.writeBlob({ fs, gitdir: repo.gitdir, blob: Buffer.from('loose\n') });
    expect(await refused(blob)).toBeInstanceOf(RepositoryFileNotFoundError);
  });

  it('answers an abbreviation shorter than four characters as no such file', async () => {
    expect(await refused(commit.slice(0, 3))).toBeInstanceOf(RepositoryFileNotFoundError);
  });

  it('reads at a commit named by its abbreviation in capitals', async () => {
    expect((await resolveLocalFile(repo.dir, 'README.md', commit.slice(0, 10).toUpperCase(), 1024)).commit).toBe(commit);
  });
});
