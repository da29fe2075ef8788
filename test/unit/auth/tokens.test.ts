import { describe, expect, it } from 'vitest';
import { newUlid } from '../../../lib/domain/ids.js';
import { bearerToken, hashToken, mintToken as mint, parseToken, tokenMatches, verifiedClaims } from '../../../lib/auth/tokens.js';

const key = 'k'.repeat(48);
const claims = { tokenId: newUlid(), userId: newUlid(), organisationId: newUlid() };
const mintToken = (c: typeof claims) => mint(c, key);

describe('tokens', () => {
  it('carries its identifiers, readable without the secret', () => {
    expect(parseToken(mintToken(claims))).toEqual({ ...claims, projectId: undefined });
  });

  it('starts with aop_ and has a 40-character secret', () => {
    expect(mintToken(claims)).toMatch(/^aop_[0-9A-Z]{104}[A-Za-z0-9]{40}$/);
  });

  it('never mints the same secret twice', () => {
    expect(mintToken(claims)).not.toBe(mintToken(claims));
  });

  it.each(['', 'aop_', 'aop_short', `xyz_${mintToken(claims).slice(4)}`, `${mintToken(claims)}x`])('rejects the malformed string %j', (t) => {
    expect(parseToken(t)).toBeUndefined();
  });

  it('matches its own keyed hash', () => {
    const t = mintToken(claims);
    expect(tokenMatches(t, hashToken(t, key), key)).toBe(true);
  });

  it('does not match after one character changes', () => {
    const t = mintToken(claims);
    const altered = t.slice(0, -1) + (t.endsWith('a') ? 'b' : 'a');
    expect(tokenMatches(altered, hashToken(t, key), key)).toBe(false);
  });

  it('does not match under another key', () => {
    const t = mintToken(claims);
    expect(tokenMatches(t, hashToken(t, key), 'x'.repeat(48))).toBe(false);
  });

  it('carries a MAC of its identifiers that only the server key verifies', () => {
    const t = mintToken(claims);
    expect(verifiedClaims(t, key)).toEqual({ ...claims, projectId: undefined });
    expect(verifiedClaims(t, 'x'.repeat(48))).toBeUndefined();
  });

  it('fails the MAC when an identifier is swapped for another', () => {
    const t = mintToken(claims);
    expect(verifiedClaims(t.replace(claims.userId, newUlid()), key)).toBeUndefined();
  });

  it('reads a Bearer header case-insensitively and nothing else', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer abc')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeUndefined();
    expect(bearerToken('Bearer')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});
