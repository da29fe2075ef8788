import { createHash } from 'node:crypto';
import { githubRepositoryOf, type RepositoryConnection } from '../domain/repositories.js';
import { openToken } from './credentials.js';
import {
  RepositoryAddressRefusedError,
  RepositoryFileNotFoundError,
  RepositoryFileTooLargeError,
  RepositoryTimeoutError,
  RepositoryUnavailableError,
  RepositoryUpstreamError,
} from './errors.js';
import { fileOf, type RepositoryFile } from './file.js';
import { type Answer, get as send } from './transport.js';

/**
 * The `github` provider: GitHub's REST API over ./transport.ts. Three requests at most, under one
 * deadline: the commit the ref names (sha media type), the file's entry at that commit (its size
 * is checked before any content moves; files up to 1 MB come inline), and, above 1 MB, the raw
 * blob. The bytes must hash to the blob id GitHub named, so a truncated or altered answer is a 502.
 */
const API_VERSION = '2022-11-28';
const SHA = /^[0-9a-f]{40}$/;
/** The contents entry of a file GitHub sends inline (up to 1 MB, base64 with line breaks) and its metadata. */
const ENTRY_CAP = 2 * 1024 * 1024;
const SMALL_CAP = 4 * 1024;
/** GitHub's advice for a secondary rate limit that names no delay: wait a minute. */
const SECONDARY_LIMIT_WAIT = 60;
const MAX_WAIT = 3600;

interface Call {
  base: string;
  token: string | undefined;
  signal: AbortSignal;
}

interface ContentsEntry {
  type?: unknown;
  size?: unknown;
  sha?: unknown;
  encoding?: unknown;
  content?: unknown;
}

export async function resolveGitHubFile(
  connection: RepositoryConnection,
  path: string,
  ref: string,
  limits: { maxBytes: number; timeoutMs: number },
): Promise<RepositoryFile> {
  const repository = githubRepositoryOf(connection.url);
  if (!repository) throw new RepositoryUpstreamError(`repository connection ${connection.id} has no GitHub repository URL`);
  const call: Call = {
    base: `${connection.api_url ?? repository.api_url}/repos/${encodeURIComponent(repository.owner)}/${encodeURIComponent(repository.repo)}`,
    token: await openToken(connection),
    signal: AbortSignal.timeout(limits.timeoutMs),
  };
  const commit = (await text(await get(call, `/commits/${segments(ref)}`, 'application/vnd.github.sha'), SMALL_CAP, call)).trim();
  if (!SHA.test(commit)) throw new RepositoryUpstreamError('GitHub named no commit id for the ref');
  const entry = await contentsEntry(call, path, commit);
  if (entry.size > limits.maxBytes) throw new RepositoryFileTooLargeError(entry.size, limits.maxBytes);
  const bytes = entry.inline ?? (await body(await get(call, `/git/blobs/${entry.sha}`, 'application/vnd.github.raw+json'), entry.size, call));
  if (bytes.length !== entry.size || gitBlobId(bytes) !== entry.sha) throw new RepositoryUpstreamError('GitHub sent bytes that are not the blob it named');
  return fileOf(commit, path, bytes);
}

async function contentsEntry(call: Call, path: string, commit: string): Promise<{ size: number; sha: string; inline: Buffer | undefined }> {
  const response = await get(call, `/contents/${segments(path)}?ref=${commit}`, 'application/vnd.github+json');
  let entry: ContentsEntry | ContentsEntry[] | null;
  try {
    entry = JSON.parse(await text(response, ENTRY_CAP, call)) as ContentsEntry | ContentsEntry[] | null;
  } catch (error) {
    if (error instanceof SyntaxError) throw new RepositoryUpstreamError('GitHub sent a contents entry that is not JSON');
    throw error;
  }
  if (typeof entry !== 'object' || entry === null) throw new RepositoryUpstreamError('GitHub sent a contents entry that is no object');
  // A directory answers with a list; symlinks to directories and submodules with entries of their own type.
  if (Array.isArray(entry) || entry.type !== 'file') throw new RepositoryFileNotFoundError(`${path} is not a file at ${commit}`);
  if (typeof entry.size !== 'number' || !Number.isSafeInteger(entry.size) || entry.size < 0 || typeof entry.sha !== 'string' || !SHA.test(entry.sha))
    throw new RepositoryUpstreamError('GitHub sent a contents entry without a size and a blob id');
  // Above 1 MB the entry says encoding "none" and the bytes come from the blob.
  const inline = entry.encoding === 'base64' && typeof entry.content === 'string' ? Buffer.from(entry.content, 'base64') : undefined;
  return { size: entry.size, sha: entry.sha, inline };
}

/** Each segment percent-encoded, so that no character of a path or ref becomes part of the query or changes the route. */
const segments = (value: string) => value.split('/').map(encodeURIComponent).join('/');

const gitBlobId = (bytes: Buffer) => createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');

async function get(call: Call, resource: string, accept: string): Promise<Answer> {
  let response: Answer;
  try {
    response = await send(
      call.base + resource,
      {
        Accept: accept,
        'User-Agent': 'assessment-operations-api',
        'X-GitHub-Api-Version': API_VERSION,
        ...(call.token ? { Authorization: `Bearer ${call.token}` } : {}),
      },
      call.signal,
    );
  } catch (error) {
    throw transportFailure(error, call.signal);
  }
  if (response.status >= 200 && response.status < 300) return response;
  throw await statusFailure(response, call);
}

function transportFailure(error: unknown, signal: AbortSignal): Error {
  if (error instanceof RepositoryAddressRefusedError) return error;
  if (signal.aborted) return new RepositoryTimeoutError('GitHub did not answer before the deadline', { cause: error });
  return new RepositoryUnavailableError('GitHub could not be reached', undefined, { cause: error });
}

async function statusFailure(response: Answer, call: Call): Promise<Error> {
  const { status, header } = response;
  const message = status === 403 ? await messageOf(response, call) : '';
  response.body.destroy();
  if (status === 404 || status === 409 || status === 422) return new RepositoryFileNotFoundError(`GitHub answered ${status}: no such repository, ref or path`);
  const exhausted = header('x-ratelimit-remaining') === '0';
  const delay = retryAfterOf(header);
  if (status === 429 || (status === 403 && (exhausted || delay !== undefined || /rate limit/i.test(message))))
    return new RepositoryUnavailableError(`GitHub answered ${status}: rate limited`, delay ?? SECONDARY_LIMIT_WAIT);
  if (status === 502 || status === 503 || status === 504) return new RepositoryUnavailableError(`GitHub answered ${status}`, delay);
  return new RepositoryUpstreamError(`GitHub answered ${status}`);
}

/** The `message` of a 403, read only to tell a secondary rate limit from a refusal; never passed on. */
async function messageOf(response: Answer, call: Call): Promise<string> {
  try {
    const parsed = JSON.parse(await text(response, SMALL_CAP, call)) as { message?: unknown };
    return typeof parsed.message === 'string' ? parsed.message : '';
  } catch {
    return '';
  }
}

/** Seconds to wait: retry-after (seconds or an HTTP date), else the primary limit's reset when it is spent. */
function retryAfterOf(header: Answer['header']): number | undefined {
  const retryAfter = header('retry-after');
  const reset = header('x-ratelimit-remaining') === '0' ? header('x-ratelimit-reset') : undefined;
  let seconds: number | undefined;
  if (retryAfter !== undefined && /^\d+$/.test(retryAfter.trim())) seconds = Number(retryAfter);
  else if (retryAfter !== undefined && !Number.isNaN(Date.parse(retryAfter))) seconds = (Date.parse(retryAfter) - Date.now()) / 1000;
  else if (reset !== undefined && /^\d+$/.test(reset)) seconds = Number(reset) - Date.now() / 1000;
  return seconds === undefined ? undefined : Math.min(MAX_WAIT, Math.max(1, Math.ceil(seconds)));
}

const text = async (response: Answer, cap: number, call: Call) => (await body(response, cap, call)).toString('utf8');

/** The body, refused past `cap` bytes without reading further. */
async function body(response: Answer, cap: number, call: Call): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      total += chunk.length;
      // Leaving the loop cancels the stream: nothing past the cap is read.
      if (total > cap) throw new RepositoryUpstreamError(`GitHub sent more than the ${cap} bytes expected`);
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof RepositoryUpstreamError) throw error;
    throw transportFailure(error, call.signal);
  }
  return Buffer.concat(chunks);
}
