import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { tokenHashSecret } from '../auth/secret.js';
import type { RepositoryConnection } from '../domain/repositories.js';
import { RepositoryUpstreamError } from './errors.js';

/*
 * A connection's access token is kept on its record sealed with AES-256-GCM under a key derived
 * (HKDF-SHA-256, an info string of its own) from the installation's token-hash secret, rather than
 * in a Secrets Manager secret per connection:
 * - every API function already reads that secret to authenticate, so the content endpoint needs no
 *   new grant, AWS command or per-connection secret, and local runs and tests take the same path;
 * - the table, its backups and exports hold only ciphertext: a token needs the table and the secret;
 * - the organisation and connection ids are the additional data, so a sealed token copied onto
 *   another record does not open.
 * Rotating the token-hash secret invalidates every API token and every sealed repository token
 * together: reconnect the repositories after it.
 */
const INFO = 'assessment-operations/repository-token/v1';
const PREFIX = 'v1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;

type Owner = Pick<RepositoryConnection, 'organisation_id' | 'id'>;

const keyOf = async () => Buffer.from(hkdfSync('sha256', await tokenHashSecret(), Buffer.alloc(0), INFO, 32));
const aadOf = (owner: Owner) => Buffer.from(`${owner.organisation_id}/${owner.id}`);

export async function sealToken(token: string, owner: Owner): Promise<string> {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', await keyOf(), iv).setAAD(aadOf(owner));
  const sealed = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
  return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
}

/** The token of a connection, or a 502 when it cannot be opened (the secret was rotated, or the record was altered). */
export async function openToken(connection: Owner & Pick<RepositoryConnection, 'token_sealed'>): Promise<string | undefined> {
  const sealed = connection.token_sealed;
  if (sealed === undefined) return undefined;
  const key = await keyOf();
  try {
    if (!sealed.startsWith(PREFIX)) throw new Error('unknown seal version');
    const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES)).setAAD(aadOf(connection));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch (error) {
    throw new RepositoryUpstreamError(`the token of repository connection ${connection.id} cannot be opened: connect the repository again`, { cause: error });
  }
}
