import * as z from 'zod';
import { once, singleLine } from './validation.js';

/**
 * Repository connections of an organisation (issue 12, "Repository files"): configured outside the
 * API by the operator CLI, named by repository evidence links with a path and a ref. Pure rules:
 * the record, what a client may see of it, and which paths and refs a link may name.
 */
export const REPOSITORY_PROVIDERS = ['github', 'local'] as const;
export type RepositoryProvider = (typeof REPOSITORY_PROVIDERS)[number];

export interface RepositoryConnection {
  id: string;
  organisation_id: string;
  provider: RepositoryProvider;
  /** github: https://<host>/<owner>/<repo>; local: the absolute path of a git repository on disk. */
  url: string;
  name: string;
  created_at: string;
  /** github: the REST API base that answers for the url's host. */
  api_url?: string;
  /** github: the access token, sealed with the installation's key (lib/repositories/credentials.ts); absent for a public repository. */
  token_sealed?: string;
}

export interface GitHubRepository {
  /** The canonical form: https://<host>/<owner>/<repo>, without `.git` or a trailing slash. */
  url: string;
  owner: string;
  repo: string;
  api_url: string;
}

const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
const REPO = /^[A-Za-z0-9._-]{1,100}$/;

/**
 * A repository on github.com, on GitHub Enterprise Cloud with data residency (<sub>.ghe.com,
 * API at api.<sub>.ghe.com) or on a GitHub Enterprise Server (API under /api/v3 of its host).
 * Only https: the token travels to that host.
 */
export function githubRepositoryOf(raw: string): GitHubRepository | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' || url.username || url.password || url.search || url.hash) return undefined;
  const [owner, repoPart, ...rest] = url.pathname.replace(/^\/|\/$/g, '').split('/');
  const repo = repoPart?.replace(/\.git$/, '');
  if (rest.length > 0 || !owner || !repo || !OWNER.test(owner) || !REPO.test(repo) || repo === '.' || repo === '..') return undefined;
  const host = url.host.toLowerCase();
  const api_url = host === 'github.com' ? 'https://api.github.com' : host.endsWith('.ghe.com') ? `https://api.${host}` : `https://${host}/api/v3`;
  return { url: `https://${host}/${owner}/${repo}`, owner, repo, api_url };
}

export const MAX_REPOSITORY_PATH = 1024;
export const MAX_REF_LENGTH = 255;

const OneLine = once(() => singleLine());
const hasControl = (s: string) => !OneLine().safeParse(s).success;

/**
 * Why a path cannot name a file of a repository, or undefined when it can. One spelling per file
 * (no `.`, empty or trailing segments), so that the same file is the same link; nothing outside
 * the working tree (absolute, `..`) or inside git's own directory, whose config may hold credentials.
 */
export function repositoryPathProblem(path: string): string | undefined {
  if (path.length === 0) return 'must not be empty';
  if (path.length > MAX_REPOSITORY_PATH) return `must be at most ${MAX_REPOSITORY_PATH} characters`;
  if (hasControl(path)) return 'must not contain control or bidirectional-override characters';
  if (path.includes('\\')) return 'must separate directories with /, not \\';
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return 'must be relative to the repository root';
  const segments = path.split('/');
  if (segments.includes('')) return 'must not contain empty segments (// or a trailing /)';
  if (segments.some((s) => s === '.' || s === '..')) return 'must not contain . or .. segments';
  if (segments.some((s) => s.toLowerCase() === '.git')) return 'must not name git’s own .git directory';
  return undefined;
}

/**
 * Why a ref is not a branch, tag or commit name git accepts (git check-ref-format, one-level names
 * allowed as with --allow-onelevel, and no leading `-`, which the git CLI would read as an option),
 * or undefined when it is. A commit id is a valid name, so it passes the same rules.
 */
export function refProblem(ref: string): string | undefined {
  if (ref.length === 0) return 'must not be empty';
  if (ref.length > MAX_REF_LENGTH) return `must be at most ${MAX_REF_LENGTH} characters`;
  if (hasControl(ref) || /[ ~^:?*[\\]/.test(ref)) return 'must not contain spaces, control characters or any of ~ ^ : ? * [ \\';
  if (ref.startsWith('/') || ref.endsWith('/') || ref.includes('//')) return 'must not begin or end with / or contain //';
  if (ref.includes('..')) return 'must not contain ..';
  if (ref.includes('@{')) return 'must not contain @{';
  if (ref === '@') return 'must not be @ alone';
  if (ref.endsWith('.')) return 'must not end with .';
  if (ref.startsWith('-')) return 'must not begin with -';
  for (const component of ref.split('/')) {
    if (component.startsWith('.')) return 'no /-separated part may begin with .';
    if (component.endsWith('.lock')) return 'no /-separated part may end with .lock';
  }
  return undefined;
}

/** What a provider will look up, and nothing that could change the request it makes. */
export const isRepositoryRef = (ref: string) => refProblem(ref) === undefined;
export const isRepositoryPath = (path: string) => repositoryPathProblem(path) === undefined;

/** The URL as people may see it: credentials a URL can carry (user information, query, fragment) are dropped. */
export function displayUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (!parsed.username && !parsed.password && !parsed.search && !parsed.hash) return url;
  parsed.username = '';
  parsed.password = '';
  parsed.search = '';
  parsed.hash = '';
  return parsed.toString();
}

export const RepositoryConnectionOption = once(() =>
  z
    .object({
      connection_id: z.string(),
      provider: z.enum(REPOSITORY_PROVIDERS),
      name: z.string(),
      url: z.string().meta({ description: 'Without any credential.' }),
    })
    .meta({ id: 'RepositoryConnectionOption' }),
);
export type RepositoryConnectionOption = z.output<ReturnType<typeof RepositoryConnectionOption>>;

/** Named field by field, so that whatever else a connection stores (a token's whereabouts) never shows. */
export const connectionOption = (c: RepositoryConnection): RepositoryConnectionOption => ({
  connection_id: c.id,
  provider: c.provider,
  name: c.name,
  url: displayUrl(c.url),
});
