import { ApiError } from '../errors.js';

/**
 * What a repository provider can fail with (seed, Evidence rule 2: 504 timeout, 503 unavailable or
 * throttled, 502 any other upstream failure). Messages are for the operator's log and name no
 * token, URL or upstream body; the problem bodies clients see are fixed texts.
 */
export class RepositoryTimeoutError extends Error {
  override readonly name = 'RepositoryTimeoutError';
}

/** Unreachable, throttling (rate limits) or answering 502/503/504: retrying later may help. */
export class RepositoryUnavailableError extends Error {
  override readonly name = 'RepositoryUnavailableError';

  constructor(
    message: string,
    readonly retryAfterSeconds?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** An answer the service cannot use: an unexpected status, a refused credential, a malformed or inconsistent body. */
export class RepositoryUpstreamError extends Error {
  override readonly name = 'RepositoryUpstreamError';
}

/** The provider's host is, or resolves to, an address inside the network (./addresses.ts): the operator must connect the repository again. */
export class RepositoryAddressRefusedError extends Error {
  override readonly name = 'RepositoryAddressRefusedError';
}

/** The ref names no commit, or the path no file in it (a directory, a submodule and a symlink are not files). */
export class RepositoryFileNotFoundError extends Error {
  override readonly name = 'RepositoryFileNotFoundError';
}

/** Larger than the caller's limit; the content endpoint answers it as evidence_content_too_large with links.download. */
export class RepositoryFileTooLargeError extends Error {
  override readonly name = 'RepositoryFileTooLargeError';

  constructor(
    readonly size: number,
    readonly limit: number,
  ) {
    super(`the file has ${size} bytes, above the limit of ${limit}`);
  }
}

/** A problem for the client, or undefined when the error is no repository failure. */
export function repositoryProblem(error: unknown): ApiError | undefined {
  if (error instanceof RepositoryTimeoutError)
    return new ApiError(504, 'repository_timeout', 'Gateway Timeout', 'The repository provider did not answer in time; retry later.');
  if (error instanceof RepositoryUnavailableError)
    return new ApiError(
      503,
      'repository_unavailable',
      'Service Unavailable',
      'The repository provider is unavailable or is throttling this service; retry later.',
      error.retryAfterSeconds === undefined ? {} : { headers: { 'Retry-After': String(error.retryAfterSeconds) } },
    );
  if (error instanceof RepositoryUpstreamError)
    return new ApiError(502, 'repository_upstream_error', 'Bad Gateway', 'The repository provider failed or gave an answer this service cannot use.');
  if (error instanceof RepositoryAddressRefusedError)
    return new ApiError(
      502,
      'repository_address_not_allowed',
      'Bad Gateway',
      'The repository provider’s host is, or resolves to, an address this service may not reach (loopback, link-local, private, unique-local or cloud metadata).',
    );
  if (error instanceof RepositoryFileNotFoundError)
    return new ApiError(404, 'repository_file_not_found', 'Not Found', 'The ref names no commit of the repository, or the path no file at that commit.');
  if (error instanceof RepositoryFileTooLargeError)
    return new ApiError(409, 'evidence_content_too_large', 'Conflict', `The repository file is larger than ${error.limit} bytes.`, {
      members: { size: error.size, limit: error.limit },
    });
  return undefined;
}
