import { createHash } from 'node:crypto';

/**
 * A file as a ref resolved it. The bytes are held whole: the content endpoint names their SHA-256
 * in its headers, which go out before the body, and the size limit keeps them small.
 */
export interface RepositoryFile {
  /** The full commit id the ref resolved to. */
  commit: string;
  path: string;
  bytes: Buffer;
  /** Hex SHA-256 of the bytes. */
  sha256: string;
  size: number;
}

export interface ResolveOptions {
  /** Refuse larger files (RepositoryFileTooLargeError); MAX_CONTENT_BYTES unless given. */
  maxBytes?: number;
  /** Remote providers: one deadline for the whole resolution (every request and body); REPOSITORY_TIMEOUT_MS unless given. */
  timeoutMs?: number;
}

/** Within API Gateway's 29 seconds, with room for the rest of the request. */
export const REPOSITORY_TIMEOUT_MS = 10_000;

export const fileOf = (commit: string, path: string, bytes: Buffer): RepositoryFile => ({
  commit,
  path,
  bytes,
  sha256: createHash('sha256').update(bytes).digest('hex'),
  size: bytes.length,
});
