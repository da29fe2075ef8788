import { MAX_CONTENT_BYTES } from '../domain/evidence.js';
import { isRepositoryPath, isRepositoryRef, type RepositoryConnection } from '../domain/repositories.js';
import { RepositoryFileNotFoundError, RepositoryUnavailableError } from './errors.js';
import { REPOSITORY_TIMEOUT_MS, type RepositoryFile, type ResolveOptions } from './file.js';
import { resolveGitHubFile } from './github.js';

export type { RepositoryFile, ResolveOptions } from './file.js';

type LocalReader = (url: string, path: string, ref: string, maxBytes: number) => Promise<RepositoryFile>;
let localReader: LocalReader | undefined;

/**
 * A `local` connection names a git repository on the disk of the machine that runs the local
 * runtime, which registers its reader (./local.ts) here. No function on AWS has such a disk, so
 * the functions neither register one nor bundle a git implementation: there, such a link is 503.
 */
export function useLocalRepositories(reader: LocalReader): void {
  localReader = reader;
}

/**
 * The file a repository evidence link points at: its ref resolved to a commit id, its bytes at that
 * commit and their SHA-256, for the content endpoint to answer with. Fails with the errors of
 * ./errors.ts, which `repositoryProblem` (and so the error mapper) turns into 404, 409, 502, 503 or 504.
 */
export async function resolveFile(connection: RepositoryConnection, path: string, ref: string, options: ResolveOptions = {}): Promise<RepositoryFile> {
  // Links are validated when created; a path or ref that could change the request is never sent.
  if (!isRepositoryPath(path) || !isRepositoryRef(ref)) throw new RepositoryFileNotFoundError('not a repository path and ref');
  const maxBytes = options.maxBytes ?? MAX_CONTENT_BYTES;
  switch (connection.provider) {
    case 'local':
      if (!localReader) throw new RepositoryUnavailableError('local repositories are read by the local runtime only');
      return localReader(connection.url, path, ref, maxBytes);
    case 'github':
      return resolveGitHubFile(connection, path, ref, { maxBytes, timeoutMs: options.timeoutMs ?? REPOSITORY_TIMEOUT_MS });
  }
}
