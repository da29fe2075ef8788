import { describe, expect, it } from 'vitest';
import { publishedRelease } from '../../../lib/domain/providers.js';
import { documentOrganisation, documentProviderRelease, documentRelease, documentSystem } from '../../../lib/jobs/document-data.js';
import { StoredItemInvalid } from '../../../lib/store/entity.js';
import { keys } from '../../../lib/store/keys.js';
import { createProviderWrites, createReleaseWrites } from '../../../lib/store/providers.js';
import { keyString } from '../../../lib/store/read.js';
import { buildOrganisation, buildProject, buildProvider, buildRelease, buildSystem } from '../../support/factories.js';
import { firstPut } from '../../support/writes.js';

const organisation = buildOrganisation({ name: 'Agency' });
const system = buildSystem({ organisation_id: organisation.id, name: 'Payroll', short_code: 'PAY', description: 'Pays people.' });
const project = buildProject({ organisation_id: organisation.id, system_id: system.id, ism_release_version: '2025.12.0' });

/** The refusal of a malformed stored item: StoredItemInvalid, naming the item's key. */
function expectRefused(read: () => unknown, key: Parameters<typeof keyString>[0]) {
  expect(read).toThrow(StoredItemInvalid);
  expect(read).toThrow(keyString(key));
}

describe("a document's organisation and system", () => {
  const organisationItem = { ...keys.organisation(organisation.id), entity: 'organisation', ...organisation };
  const systemItem = { ...keys.system(organisation.id, system.id), entity: 'system', ...system };

  it('show their names as stored', () => {
    expect(documentOrganisation(project, organisationItem)).toEqual({ id: organisation.id, name: 'Agency' });
    expect(documentSystem(project, systemItem)).toEqual({ id: system.id, name: 'Payroll', short_code: 'PAY', description: 'Pays people.' });
  });

  it('show empty names for an item that is absent', () => {
    expect(documentOrganisation(project, undefined)).toEqual({ id: organisation.id, name: '' });
    expect(documentSystem(project, undefined)).toEqual({ id: system.id, name: '', short_code: '', description: null });
  });

  it('refuse an item that fails its schema, naming its key', () => {
    expectRefused(() => documentOrganisation(project, { ...organisationItem, name: 7 }), organisationItem);
    expectRefused(() => documentSystem(project, { ...systemItem, description: ['Pays people.'] }), systemItem);
  });
});

describe("a document's catalogue release", () => {
  const stored = {
    ...keys.catalogueRelease(project.ism_release_id),
    entity: 'catalogue-release',
    id: project.ism_release_id,
    version: '2025.12.0',
    title: 'Information Security Manual (December 2025)',
    published: '2025-12-04',
    entries: 3,
    controls: 2,
    principles: 1,
    status: 'complete',
    digest: 'c'.repeat(64),
    sample: true,
    imported_at: '2026-01-01T00:00:00.000Z',
  };

  it('shows the version, title, publication and sample mark stored', () => {
    expect(documentRelease(project, stored)).toEqual({
      id: project.ism_release_id,
      version: '2025.12.0',
      title: 'Information Security Manual (December 2025)',
      published: '2025-12-04',
      sample: true,
    });
  });

  it("shows the project's version of an absent release", () => {
    expect(documentRelease(project, undefined)).toEqual({
      id: project.ism_release_id,
      version: '2025.12.0',
      title: 'Information security manual',
      published: null,
      sample: false,
    });
  });

  it('refuses a release that fails its schema, naming its key', () => {
    expectRefused(() => documentRelease(project, { ...stored, sample: 'yes' }), stored);
  });
});

describe("a document's provider release", () => {
  const provider = buildProvider({ name: 'Cloud Co' });
  const release = publishedRelease(buildRelease({ provider_id: provider.id, name: 'IRAP 2026', version: '2026.1' }), 'U', new Date('2026-03-02T05:00:00.000Z'));
  const reference = { provider_id: provider.id, release_id: release.id };
  const providerItem = firstPut(createProviderWrites(provider));
  const releaseItem = firstPut(createReleaseWrites(release, 50, () => new Error('limit')));

  it('names the provider and the release as stored', () => {
    expect(documentProviderRelease(reference, providerItem, releaseItem)).toEqual({
      provider_id: provider.id,
      provider_name: 'Cloud Co',
      release_id: release.id,
      release_name: 'IRAP 2026',
      release_version: '2026.1',
      assessed_on: '2026-01-15',
      published_on: '2026-03-02',
    });
  });

  it('names a provider and a release that are absent by their ids', () => {
    expect(documentProviderRelease(reference, undefined, undefined)).toEqual({
      provider_id: provider.id,
      provider_name: provider.id,
      release_id: release.id,
      release_name: release.id,
      release_version: '',
      assessed_on: null,
      published_on: null,
    });
  });

  it('refuses a provider or a release that fails its schema, naming its key', () => {
    expectRefused(() => documentProviderRelease(reference, { ...providerItem, name: null }, releaseItem), providerItem);
    expectRefused(() => documentProviderRelease(reference, providerItem, { ...releaseItem, published_at: 20260302 }), releaseItem);
  });
});
