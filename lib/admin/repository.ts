import { readFileSync } from 'node:fs';
import { basename, isAbsolute, normalize } from 'node:path';
import { newUlid } from '../domain/ids.js';
import { githubRepositoryOf, REPOSITORY_PROVIDERS, type RepositoryConnection, type RepositoryProvider } from '../domain/repositories.js';
import { singleLine } from '../domain/validation.js';
import { hostRefusal } from '../repositories/addresses.js';
import { sealToken } from '../repositories/credentials.js';
import { gitDirOf } from '../repositories/local.js';
import { writeAudit } from '../store/audit.js';
import { keys } from '../store/keys.js';
import { getOne } from '../store/read.js';
import { deleteRepositoryConnection, listRepositoryConnections, putRepositoryConnection } from '../store/repositories.js';

/** Bad input to `admin repository ...`: one line on stderr, exit code 2. It never quotes a token. */
export class RepositoryRefusedError extends Error {
  override readonly name = 'RepositoryRefusedError';
}

const Name = singleLine().trim().min(1).max(200);
/** A token is one line of visible ASCII: what GitHub issues (ghp_, github_pat_, ghs_ and the older 40 hex). */
const TOKEN = /^[\x21-\x7E]{1,1024}$/;

/** What the CLI prints of a connection: never the sealed token, only whether there is one. */
export function connectionView(c: RepositoryConnection) {
  const { token_sealed, ...rest } = c;
  return { ...rest, has_token: token_sealed !== undefined };
}

async function requireOrganisation(organisationId: string): Promise<void> {
  if (!(await getOne(keys.organisation(organisationId)))) throw new RepositoryRefusedError(`no organisation ${organisationId}`);
}

function readToken(file: string): string {
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch {
    throw new RepositoryRefusedError(`cannot read --token-file ${file}`);
  }
  const token = raw.trim();
  if (!TOKEN.test(token)) throw new RepositoryRefusedError(`--token-file ${file} must hold one token on one line, without spaces`);
  return token;
}

async function locationOf(provider: RepositoryProvider, url: string, tokenFile: string | undefined) {
  if (provider === 'github') {
    const repository = githubRepositoryOf(url);
    if (!repository) throw new RepositoryRefusedError('--url must be https://github.com/<owner>/<repo> or the same form on a GitHub Enterprise host');
    const refusal = await hostRefusal(new URL(repository.api_url).hostname);
    if (refusal) throw new RepositoryRefusedError(`--url host ${refusal}: repositories are reached across the internet only`);
    return { url: repository.url, api_url: repository.api_url, name: `${repository.owner}/${repository.repo}` };
  }
  if (tokenFile !== undefined) throw new RepositoryRefusedError('--token-file is for github connections only');
  if (!isAbsolute(url)) throw new RepositoryRefusedError('--url of a local repository must be an absolute path');
  const path = normalize(url).replace(/(.)\/$/, '$1');
  if (!(await gitDirOf(path))) throw new RepositoryRefusedError(`${path} is not a git repository (a working tree with .git, or a bare repository)`);
  return { url: path, name: basename(path) };
}

/**
 * A connection as the operator configures it. The organisation must exist and the location must be
 * one the provider can read; a GitHub host inside the network is refused (../repositories/addresses.ts).
 * A GitHub repository is not contacted here (the CLI may run where GitHub is out of reach), so a
 * wrong token shows as a 502 on the first content read.
 */
export async function connectRepository(
  input: { organisationId: string; provider: string; url: string; tokenFile?: string; name?: string },
  now: Date,
): Promise<RepositoryConnection> {
  const provider = REPOSITORY_PROVIDERS.find((p) => p === input.provider);
  if (!provider) throw new RepositoryRefusedError(`--provider must be one of ${REPOSITORY_PROVIDERS.join(', ')}`);
  const location = await locationOf(provider, input.url, input.tokenFile);
  const token = input.tokenFile === undefined ? undefined : readToken(input.tokenFile);
  const name = Name.safeParse(input.name ?? location.name);
  if (!name.success) throw new RepositoryRefusedError('--name must be one line of 1 to 200 characters');
  await requireOrganisation(input.organisationId);
  const owner = { id: newUlid(now.getTime()), organisation_id: input.organisationId };
  const connection: RepositoryConnection = {
    ...owner,
    provider,
    url: location.url,
    name: name.data,
    created_at: now.toISOString(),
    ...('api_url' in location ? { api_url: location.api_url } : {}),
    ...(token === undefined ? {} : { token_sealed: await sealToken(token, owner) }),
  };
  await putRepositoryConnection(connection);
  await audit('REPOSITORY_CONNECTED', connection, now);
  return connection;
}

export async function listConnections(organisationId: string): Promise<RepositoryConnection[]> {
  await requireOrganisation(organisationId);
  return listRepositoryConnections(organisationId);
}

/** Links that name a removed connection stay; their content reads then find no connection. */
export async function removeConnection(organisationId: string, connectionId: string, now: Date): Promise<void> {
  const removed = await deleteRepositoryConnection(organisationId, connectionId);
  if (!removed) throw new RepositoryRefusedError(`no repository connection ${connectionId} in organisation ${organisationId}`);
  await audit('REPOSITORY_REMOVED', removed, now);
}

async function audit(kind: string, c: RepositoryConnection, now: Date): Promise<void> {
  await writeAudit(
    {
      kind,
      request_id: `cli-${c.id}-${now.getTime()}`,
      method: 'CLI',
      route: kind === 'REPOSITORY_CONNECTED' ? 'admin repository connect' : 'admin repository remove',
      status: 0,
      actor_id: 'operator',
      organisation_id: c.organisation_id,
      target: { organisation: c.organisation_id, repository: c.id },
      details: { provider: c.provider, has_token: c.token_sealed !== undefined },
    },
    now,
  );
}
