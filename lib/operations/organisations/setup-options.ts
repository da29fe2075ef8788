import { ASSESSMENT_TYPES, ESSENTIAL_EIGHT_TARGETS, licensedClassifications, SetupOptions } from '../../domain/setup-options.js';
import { notFound } from '../../errors.js';
import { keys } from '../../store/keys.js';
import { toOrganisation } from '../../store/organisations.js';
import { allPublishedReleases, toProvider } from '../../store/providers.js';
import { getMany } from '../../store/read.js';
import { listReleases } from '../../catalogue/store.js';
import { NoQuery, OrganisationParams } from '../kernel/common.js';
import { operation } from './declare.js';

/** Published releases grouped by provider, providers and releases oldest first. */
async function providerAssurance() {
  const published = await allPublishedReleases();
  const providers = await getMany([...new Set(published.map((r) => r.provider_id))].map((id) => keys.externalProvider(id)));
  return {
    providers: [...providers.values()]
      .map(toProvider)
      .sort((a, b) => a.id.localeCompare(b.id))
      .map((p) => ({
        id: p.id,
        name: p.name,
        releases: published
          .filter((r) => r.provider_id === p.id)
          .sort((a, b) => a.id.localeCompare(b.id))
          .map((r) => ({ id: r.id, version: r.version, name: r.name, ism_version_id: r.ism_version_id, ism_version: r.ism_version })),
      })),
  };
}

export const getSetupOptions = operation({
  id: 'getSetupOptions',
  method: 'GET',
  path: '/organisations/{organisation}/setup-options',
  summary: 'What project setup may choose: ISM releases, licensed classifications, scope choices and provider assurance metadata.',
  description:
    "ISM releases come from the installed catalogue, classifications from the organisation's licence, and provider assurance lists only published releases, grouped by provider, oldest first. Reading creates nothing.",
  credential: ['organisation'],
  permission: { organisation: [['view-projects', 'manage-projects']] },
  success: 200,
  params: OrganisationParams,
  query: NoQuery,
  response: SetupOptions,
  sideEffects: [],
  prefetch: ({ organisation }) => [keys.organisation(organisation)],
  handle: async (ctx, { params }) => {
    const org = ctx.prefetched(keys.organisation(params.organisation));
    if (!org) throw notFound();
    const [releases, provider_assurance] = await Promise.all([listReleases(), providerAssurance()]);
    return {
      data: {
        ism_releases: releases.map((r) => ({ id: r.id, version: r.version, title: r.title, entries: r.entries, sample: r.sample })),
        classifications: licensedClassifications(toOrganisation(org).licensed_classifications ?? []),
        scope_choices: { essential_eight_targets: [...ESSENTIAL_EIGHT_TARGETS], assessment_types: [...ASSESSMENT_TYPES] },
        provider_assurance,
      },
    };
  },
});
