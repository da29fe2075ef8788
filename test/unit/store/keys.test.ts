import { describe, expect, it } from 'vitest';
import { keys, prefixes, withoutKeys } from '../../../lib/store/keys.js';
import { keyString } from '../../../lib/store/read.js';

/** Calls a key builder with the same value for each of its parameters. */
const build = (builder: (...args: never[]) => { PK: string; SK: string }, value: string) =>
  (builder as (...args: string[]) => { PK: string; SK: string })(...Array.from({ length: builder.length }, () => value));

describe('key builders', () => {
  it('never build the same key for two item types from the same identifiers', () => {
    const byKey = new Map<string, string[]>();
    for (const [name, builder] of Object.entries(keys)) {
      const key = keyString(build(builder, 'X'));
      byKey.set(key, [...(byKey.get(key) ?? []), name]);
    }
    expect([...byKey.values()].filter((names) => names.length > 1)).toEqual([]);
  });

  it('pad catalogue positions so that sort-key order is catalogue order', () => {
    expect([keys.catalogueEntry('R', 10).SK, keys.catalogueEntry('R', 9).SK].sort()).toEqual(['ENTRY#00009', 'ENTRY#00010']);
  });

  it('pad evidence versions so that sort-key order is version order', () => {
    expect(keys.evidenceVersion('P', 'E', 12)).toEqual({ PK: 'PROJECT#P', SK: 'EVIDENCEVERSION#E#000012' });
  });

  it('find a user by email whatever its case', () => {
    expect(keys.userEmail('Ann@Example.org')).toEqual(keys.userEmail('ann@example.org'));
  });

  it("tell a release's purge from its provider's", () => {
    expect([keys.providerPurge('V', 'R').SK, keys.providerPurge('V').SK]).toEqual(['PURGE#RELEASE#R', 'PURGE#PROVIDER']);
  });

  it("put a control's evidence items under its head's sort key, so one Query reads both", () => {
    expect(keys.evidence('P', 'C', 'E').SK.startsWith(keys.evidenceHead('P', 'C').SK)).toBe(true);
  });

  it('keep every access item of a user under the access prefix, whatever its scope', () => {
    const scopes = [keys.installationAccess('U'), keys.organisationAccess('U', 'O'), keys.projectAccess('U', 'P')];
    expect(scopes.every((k) => k.PK === keys.user('U').PK && k.SK.startsWith(prefixes.access))).toBe(true);
  });
});

describe('withoutKeys', () => {
  it('strips the table and index keys, the TTL and the entity marker, keeping every other attribute', () => {
    const item = { ...keys.token('T'), GSI1PK: 'USERTOKENS#U', GSI1SK: 'T', ttl: 1, entity: 'token', id: 'T', name: 'CI' };
    expect(withoutKeys(item)).toEqual({ id: 'T', name: 'CI' });
  });
});
