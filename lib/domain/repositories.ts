import * as z from 'zod';

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
  /** A GitHub repository URL, or where a `local` repository lives on disk. */
  url: string;
  name: string;
  created_at: string;
}

export const MAX_REPOSITORY_PATH = 1024;
export const MAX_REF_LENGTH = 255;

const hasControl = (s: string) => [...s].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);

/**
 * Why a path cannot name a file of a repository, or undefined when it can. One spelling per file
 * (no `.`, empty or trailing segments), so that the same file is the same link; nothing outside
 * the working tree (absolute, `..`) or inside git's own directory, whose config may hold credentials.
 */
export function repositoryPathProblem(path: string): string | undefined {
  if (path.length === 0) return 'must not be empty';
  if (path.length > MAX_REPOSITORY_PATH) return `must be at most ${MAX_REPOSITORY_PATH} characters`;
  if (hasControl(path)) return 'must not contain control characters';
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

export const RepositoryConnectionOption = z
  .object({
    connection_id: z.string(),
    provider: z.enum(REPOSITORY_PROVIDERS),
    name: z.string(),
    url: z.string().meta({ description: 'Without any credential.' }),
  })
  .meta({ id: 'RepositoryConnectionOption' });
export type RepositoryConnectionOption = z.output<typeof RepositoryConnectionOption>;

/** Named field by field, so that whatever else a connection stores (a token's whereabouts) never shows. */
export const connectionOption = (c: RepositoryConnection): RepositoryConnectionOption => ({
  connection_id: c.id,
  provider: c.provider,
  name: c.name,
  url: displayUrl(c.url),
});
