import fs, { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import git, { type TreeEntry } from 'isomorphic-git';

/**
 * Git repositories that tests build on disk with isomorphic-git's object writers: exact trees
 * (symlinks and submodules included) and fixed dates, so that commit ids repeat from run to run.
 */
export type Entry = string | Buffer | { executable: string } | { symlink: string } | { submodule: string };
export type Files = Record<string, Entry>;

export interface TestRepository {
  /** What a connection's url names: the working tree, or the repository itself when bare. */
  dir: string;
  gitdir: string;
  commit(branch: string, files: Files, message: string): Promise<string>;
  tag(name: string, commit: string): Promise<void>;
  annotatedTag(name: string, commit: string): Promise<string>;
  remove(): void;
}

const person = (seconds: number) => ({ name: 'Evidence Tester', email: 'tester@example.test', timestamp: seconds, timezoneOffset: 0 });

export async function testRepository(options: { bare?: boolean } = {}): Promise<TestRepository> {
  const dir = mkdtempSync(join(tmpdir(), 'repo-'));
  const gitdir = options.bare ? dir : join(dir, '.git');
  await (options.bare ? git.init({ fs, gitdir, bare: true, defaultBranch: 'main' }) : git.init({ fs, dir, defaultBranch: 'main' }));
  let clock = 1_767_225_600;

  async function treeOf(files: Files): Promise<string> {
    const here = new Map<string, Entry>();
    const below = new Map<string, Files>();
    for (const [path, entry] of Object.entries(files)) {
      const [head, ...rest] = path.split('/');
      if (rest.length === 0) here.set(head!, entry);
      else below.set(head!, { ...below.get(head!), [rest.join('/')]: entry });
    }
    const tree: TreeEntry[] = [];
    for (const [name, entry] of here) tree.push(await entryOf(name, entry));
    for (const [name, sub] of below) tree.push({ mode: '040000', path: name, oid: await treeOf(sub), type: 'tree' });
    return git.writeTree({ fs, gitdir, tree });
  }

  async function entryOf(path: string, entry: Entry): Promise<TreeEntry> {
    const blob = async (content: string | Buffer) => git.writeBlob({ fs, gitdir, blob: typeof content === 'string' ? Buffer.from(content) : content });
    if (typeof entry === 'string' || Buffer.isBuffer(entry)) return { mode: '100644', path, oid: await blob(entry), type: 'blob' };
    if ('executable' in entry) return { mode: '100755', path, oid: await blob(entry.executable), type: 'blob' };
    if ('symlink' in entry) return { mode: '120000', path, oid: await blob(entry.symlink), type: 'blob' };
    return { mode: '160000', path, oid: entry.submodule, type: 'commit' };
  }

  return {
    dir,
    gitdir,
    async commit(branch, files, message) {
      const parent = await git.resolveRef({ fs, gitdir, ref: `refs/heads/${branch}` }).catch(() => undefined);
      clock += 60;
      const oid = await git.writeCommit({
        fs,
        gitdir,
        commit: { message, tree: await treeOf(files), parent: parent ? [parent] : [], author: person(clock), committer: person(clock) },
      });
      await git.writeRef({ fs, gitdir, ref: `refs/heads/${branch}`, value: oid, force: true });
      return oid;
    },
    tag: (name, commit) => git.tag({ fs, gitdir, ref: name, object: commit }),
    async annotatedTag(name, commit) {
      await git.annotatedTag({ fs, gitdir, ref: name, object: commit, message: `Release ${name}`, tagger: person(clock) });
      return git.resolveRef({ fs, gitdir, ref: `refs/tags/${name}` });
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
