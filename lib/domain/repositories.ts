import { singleLine } from './validation.js';

/**
 * Repository connections of an organisation (issue 12, Repository files). The operator CLI
 * configures them outside the API; repository evidence links name one with a path and a ref, and
 * the providers of lib/repositories read the file they point at.
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

const OneLine = singleLine();
const REF_REFUSED = /[\s~^:?*[\\]|\.\.|@\{|\/\/|\.lock(?:\/|$)|(?:^|\/)\./;

/**
 * A branch, a tag, or a full or abbreviated commit id, by git's own rules for ref names
 * (git check-ref-format): what a provider will look up, and nothing that could change the request it makes.
 */
export const isRepositoryRef = (ref: string) =>
  ref.length >= 1 && ref.length <= 255 && OneLine.safeParse(ref).success && !REF_REFUSED.test(ref) && !/^[-/]|[/.]$/.test(ref) && ref !== '@';

/**
 * A file's path inside the repository: relative, slash-separated, without empty, `.` or `..`
 * segments (a URL would resolve those, reaching outside the contents API).
 */
export const isRepositoryPath = (path: string) =>
  path.length >= 1 &&
  path.length <= 1024 &&
  OneLine.safeParse(path).success &&
  path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
