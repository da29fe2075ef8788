import { ASSESSMENT_TYPES, ESSENTIAL_EIGHT_TARGETS, licensedClassifications, SetupOptions } from '../domain/setup-options.js';
import { notFound } from '../errors.js';
import { keys } from '../store/keys.js';
import { listReleases } from '../catalogue/store.js';
import { NoQuery, OrganisationParams } from './common.js';
import { operation } from './operation.js';

export const getSetupOptions = operation({
  id: 'getSetupOptions',
  group: 'organisations',
  method: 'GET',
  path: '/organisations/{organisation}/setup-options',
  summary: 'What project setup may choose: ISM releases, licensed classifications, scope choices and provider assurance metadata.',
  credential: ['organisation'],
  permission: { organisation: [['view-projects', 'manage-projects']] },
  mode: 'read',
  success: 200,
  params: OrganisationParams,
  query: NoQuery,
  response: SetupOptions,
  errors: [422],
  sideEffects: [],
  prefetch: ({ organisation }) => [keys.organisation(organisation)],
  handle: async (ctx, { params }) => {
    const org = ctx.prefetched(keys.organisation(params.organisation));
    if (!org) throw notFound();
    const releases = await listReleases();
    return {
      data: {
        ism_releases: releases.map((r) => ({ id: r.id, version: r.version, title: r.title, entries: r.entries, sample: r.sample })),
        classifications: licensedClassifications((org.licensed_classifications as string[] | undefined) ?? []),
        scope_choices: { essential_eight_targets: [...ESSENTIAL_EIGHT_TARGETS], assessment_types: [...ASSESSMENT_TYPES] },
        // Shared external providers and their published assurance releases arrive with the provider operations.
        provider_assurance: { providers: [] },
      },
    };
  },
});
