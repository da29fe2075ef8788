import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resetTokenHashSecret } from '../../../lib/auth/secret.js';
import { resetSettings } from '../../../lib/config.js';
import { openToken, sealToken } from '../../../lib/repositories/credentials.js';
import { RepositoryUpstreamError } from '../../../lib/repositories/errors.js';

const TOKEN = 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz';
const owner = { organisation_id: 'ORG1', id: 'REPO1' };

function useSecret(secret: string) {
  process.env.TOKEN_HASH_SECRET = secret;
  resetSettings();
  resetTokenHashSecret();
}

beforeEach(() => useSecret(randomBytes(32).toString('hex')));
afterEach(() => {
  delete process.env.TOKEN_HASH_SECRET;
  resetSettings();
  resetTokenHashSecret();
});

describe('repository tokens', () => {
  it('are sealed without the token in clear and open again to the same token', async () => {
    const sealed = await sealToken(TOKEN, owner);
    expect(sealed).not.toContain(TOKEN);
    expect(Buffer.from(sealed.slice(3), 'base64url').toString('latin1')).not.toContain(TOKEN.slice(0, 12));
    expect(await openToken({ ...owner, token_sealed: sealed })).toBe(TOKEN);
  });

  it('are sealed differently each time (a fresh nonce)', async () => {
    expect(await sealToken(TOKEN, owner)).not.toBe(await sealToken(TOKEN, owner));
  });

  it('do not open on another connection record', async () => {
    const sealed = await sealToken(TOKEN, owner);
    await expect(openToken({ organisation_id: 'ORG1', id: 'REPO2', token_sealed: sealed })).rejects.toBeInstanceOf(RepositoryUpstreamError);
  });

  it('do not open once the token-hash secret is rotated', async () => {
    const sealed = await sealToken(TOKEN, owner);
    useSecret(randomBytes(32).toString('hex'));
    await expect(openToken({ ...owner, token_sealed: sealed })).rejects.toBeInstanceOf(RepositoryUpstreamError);
  });

  it('do not open when altered', async () => {
    const raw = Buffer.from((await sealToken(TOKEN, owner)).slice(3), 'base64url');
    raw[raw.length - 1]! ^= 1;
    await expect(openToken({ ...owner, token_sealed: `v1.${raw.toString('base64url')}` })).rejects.toBeInstanceOf(RepositoryUpstreamError);
  });

  it('are absent for a connection without one', async () => {
    expect(await openToken(owner)).toBeUndefined();
  });
});
