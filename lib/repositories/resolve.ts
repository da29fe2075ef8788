import { MAX_CONTENT_BYTES } from '../domain/evidence.js';
import { isRepositoryPath, isRepositoryRef, type RepositoryConnection } from '../domain/repositories.js';
import { RepositoryFileNotFoundError } from './errors.js';
import { REPOSITORY_TIMEOUT_MS, type RepositoryFile, type ResolveOptions } from './file.js';
import { resolveGitHubFile } from './github.js';
import { resolveLocalFile } from './local.js';

export type { RepositoryFile, ResolveOptions } from './file.js';

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
      return resolveLocalFile(connection.url, path, ref, maxBytes);
    case 'github':
      return resolveGitHubFile(connection, path, ref, { maxBytes, timeoutMs: options.timeoutMs ?? REPOSITORY_TIMEOUT_MS });
  }
}
