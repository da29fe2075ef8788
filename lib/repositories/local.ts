import fs from 'node:fs';
import { join, posix } from 'node:path';
import { once } from '../domain/validation.js';
import { RepositoryFileNotFoundError, RepositoryFileTooLargeError, RepositoryUpstreamError } from './errors.js';
import { fileOf, type RepositoryFile } from './file.js';

/**
 * The `local` provider: a git repository on the disk of the local runtime, read with
 * isomorphic-git (no git binary, so CI needs nothing beyond package.json). Git is asked what it
 * would answer: refs as `git rev-parse` resolves them (tags before branches), abbreviated commit
 * ids, annotated tags peeled to their commit, and only regular files as files.
 */
const isDirectory = (path: string) =>
  fs.promises.stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );

/** The git directory of a working tree (`<dir>/.git`) or of a bare repository (`<dir>` itself); undefined when there is none. */
export async function gitDirOf(dir: string): Promise<string | undefined> {
  if (await isDirectory(join(dir, '.git'))) return join(dir, '.git');
  const bare = (await isDirectory(join(dir, 'objects'))) && (await isDirectory(join(dir, 'refs'))) && fs.existsSync(join(dir, 'HEAD'));
  return bare ? dir : undefined;
}

/**
 * isomorphic-git, loaded at the first read: its import took about 0.17 s of CPU at every `npm
 * start` (which serves this provider) and every operator command (which checks gitDirOf), before
 * any repository was read.
 */
type Git = typeof import('isomorphic-git').default;
const gitModule = once(async (): Promise<Git> => (await import('isomorphic-git')).default);

const codeOf = (error: unknown) => (error as { code?: unknown }).code;
/** isomorphic-git's answers for a ref, an object or a path that is not there or not of the kind asked for. */
const MISSING = new Set(['NotFoundError', 'ObjectTypeError', 'AmbiguousError', 'InvalidOidError']);
const ABBREVIATED = /^[0-9a-f]{4,40}$/i;
/** Mode of a regular file (100644) or an executable one (100755); symlinks (120000) and submodules (160000) are not files. */
const REGULAR = new Set(['100644', '100755']);

export async function resolveLocalFile(url: string, path: string, ref: string, maxBytes: number): Promise<RepositoryFile> {
  const gitdir = await gitDirOf(url);
  if (!gitdir) throw new RepositoryUpstreamError(`the local repository ${url} is no longer a git repository`);
  const git = await gitModule();
  try {
    const commit = await commitOf(git, gitdir, ref);
    const blob = await blobOf(git, gitdir, commit, path);
    const { blob: bytes } = await git.readBlob({ fs, gitdir, oid: blob });
    if (bytes.length > maxBytes) throw new RepositoryFileTooLargeError(bytes.length, maxBytes);
    return fileOf(commit, path, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length));
  } catch (error) {
    if (error instanceof RepositoryFileNotFoundError || error instanceof RepositoryFileTooLargeError) throw error;
    if (MISSING.has(codeOf(error) as string)) throw new RepositoryFileNotFoundError(`no file ${path} at ${ref}`, { cause: error });
    throw new RepositoryUpstreamError(`the local repository ${url} could not be read`, { cause: error });
  }
}

/** Annotated tags are peeled by readCommit itself: the id answered is always a commit's. */
async function commitOf(git: Git, gitdir: string, ref: string): Promise<string> {
  const oid = await git.resolveRef({ fs, gitdir, ref }).catch((error: unknown) => {
    if (codeOf(error) === 'NotFoundError' && ABBREVIATED.test(ref)) return git.expandOid({ fs, gitdir, oid: ref.toLowerCase() });
    throw error;
  });
  return (await git.readCommit({ fs, gitdir, oid })).oid;
}

async function blobOf(git: Git, gitdir: string, commit: string, path: string): Promise<string> {
  const parent = posix.dirname(path);
  const { tree } = await git.readTree({ fs, gitdir, oid: commit, ...(parent === '.' ? {} : { filepath: parent }) });
  const entry = tree.find((e) => e.path === posix.basename(path));
  if (entry?.type !== 'blob' || !REGULAR.has(entry.mode)) throw new RepositoryFileNotFoundError(`${path} is not a file at ${commit}`);
  return entry.oid;
}
