import { describe, expect, it } from 'vitest';
import { newRelease } from '../../../lib/domain/providers.js';
import { StoredItemInvalid } from '../../../lib/store/entity.js';
import { createProviderWrites, createReleaseWrites, toProvider, toRelease } from '../../../lib/store/providers.js';
import { buildProvider } from '../../support/factories.js';
import { firstPut } from '../../support/writes.js';
import { artefactTotal, hasArtefacts, providerCount, publishedCount } from '../../../lib/store/providers.js';
import { keys } from '../../../lib/store/keys.js';

const provider = buildProvider({ id: '01JD3Q5Z8X6Y7W2V9T4S3R2P1N', website: 'https://example.com' });
const release = newRelease(
  { name: 'Assurance', version: '2026.1', ism_version_id: '01JD3Q5Z8X6Y7W2V9T4S3R2P1M' },
  { id: '01JD3Q5Z8X6Y7W2V9T4S3R2P1K', providerId: provider.id, ismVersion: '2025.03.1', by: 'U', now: new Date('2026-01-01T00:00:00.000Z') },
);

const providerItem = () => firstPut(createProviderWrites(provider));
const releaseItem = () => firstPut(createReleaseWrites(release, 50, () => new Error('limit')));

describe('stored providers', () => {
  it('reads a provider as written', () => {
    expect(toProvider(providerItem())).toEqual(provider);
  });

  it('reads the counters other writes add to a provider', () => {
    expect(toProvider({ ...providerItem(), selections: 2, artefact_count: 1 })).toMatchObject({ selections: 2, artefact_count: 1 });
  });

  it('refuses a provider without its revision, naming its key', () => {
    const { version: _v, ...item } = providerItem();
    expect(() => toProvider(item)).toThrow(StoredItemInvalid);
    expect(() => toProvider(item)).toThrow(/PROVIDER#01JD3Q5Z8X6Y7W2V9T4S3R2P1N\|PROVIDER/);
  });
});

describe('stored assurance releases', () => {
  it('reads a release as written', () => {
    expect(toRelease(releaseItem())).toEqual(release);
  });

  it('refuses a release whose status is not one of its statuses, naming its key', () => {
    const item = { ...releaseItem(), status: 'withdrawn' };
    expect(() => toRelease(item)).toThrow(StoredItemInvalid);
    expect(() => toRelease(item)).toThrow(/RELEASE#01JD3Q5Z8X6Y7W2V9T4S3R2P1K/);
  });
});

describe('provider counts', () => {
  it("answers the artefact list's total with and without restricted artefacts", () => {
    const counted = toProvider({ ...providerItem(), artefact_count: 5, restricted_artefact_count: 2 });
    expect([artefactTotal(counted, true), artefactTotal(counted, false), hasArtefacts(counted)]).toEqual([5, 3, true]);
    expect([artefactTotal(toProvider(providerItem()), false), hasArtefacts(toProvider(providerItem()))]).toEqual([0, false]);
  });

  it('refuses a provider whose artefact count is malformed, naming its key', () => {
    expect(() => toProvider({ ...providerItem(), artefact_count: -1 })).toThrow(StoredItemInvalid);
    expect(() => toProvider({ ...providerItem(), artefact_count: -1 })).toThrow('PROVIDER#01JD3Q5Z8X6Y7W2V9T4S3R2P1N|PROVIDER');
  });

  it('reads the provider total and the published totals, by ISM release or in all', () => {
    expect(providerCount({ ...keys.counter('providers'), count: 3 })).toBe(3);
    const published = { ...keys.counter('published-releases'), count: 4, ism_I1: 3 };
    expect([publishedCount(published, undefined), publishedCount(published, 'I1'), publishedCount(published, 'I2')]).toEqual([4, 3, 0]);
    expect(publishedCount(undefined, 'I1')).toBe(0);
  });

  it('refuses a malformed published total, naming the key', () => {
    const read = () => publishedCount({ ...keys.counter('published-releases'), ism_I1: '3' }, undefined);
    expect(read).toThrow(StoredItemInvalid);
    expect(read).toThrow('COUNTER#published-releases|COUNTER');
  });
});
