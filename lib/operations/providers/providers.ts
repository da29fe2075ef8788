import * as z from 'zod';
import { newUlid } from '../../domain/ids.js';
import { CreateExternalProvider, ExternalProvider, providerView, UpdateExternalProvider, type StoredProvider } from '../../domain/providers.js';
import { conflict, forbidden } from '../../errors.js';
import { keys } from '../../store/keys.js';
import { purgeMarkerWrite } from '../../store/provider-purge.js';
import {
  allReleases,
  createProviderWrites,
  deleteProviderWrites,
  hasArtefacts,
  PROVIDER_COUNTER,
  providerCount,
  providersPage,
  updateProviderWrite,
} from '../../store/providers.js';
import { NoQuery, PageQuery } from '../kernel/common.js';
import { operation } from './declare.js';
import { PROVIDER_PATH, PROVIDERS_PATH, ProviderParams, providerEtag, providerOf, providerPrefetch } from './access.js';
import { urlOf } from '../kernel/router.js';
import { requireIfMatch } from '../kernel/etag.js';

const HIERARCHY = { administration: [['manage-org-hierarchy' as const]] };

export const listExternalProviders = operation({
  id: 'listExternalProviders',
  method: 'GET',
  path: PROVIDERS_PATH,
  summary: 'List the shared external providers of the installation, oldest first.',
  description:
    "Providers belong to the installation, not to an organisation: every Administration credential with manage-org-hierarchy sees all of them. The total is the installation's provider count.",
  credential: ['administration'],
  permission: HIERARCHY,
  success: 200,
  params: () => z.strictObject({}),
  query: PageQuery,
  response: () => z.array(ExternalProvider()),
  paginated: true,
  sideEffects: [],
  prefetch: () => [keys.counter(PROVIDER_COUNTER)],
  handle: async (ctx) => {
    const page = await providersPage(ctx.page);
    return { data: page.map(providerView), total: providerCount(ctx.prefetched(keys.counter(PROVIDER_COUNTER))) };
  },
});

export const createExternalProvider = operation({
  id: 'createExternalProvider',
  method: 'POST',
  path: PROVIDERS_PATH,
  summary: 'Create a shared external provider (installation-owned).',
  description:
    'The provider starts with no releases or artefacts; add assurance releases with createAssuranceRelease and artefacts with createProviderArtefact. Projects can select it only once one of its releases is published.',
  credential: ['administration'],
  permission: HIERARCHY,
  success: 201,
  params: () => z.strictObject({}),
  query: NoQuery,
  body: { schema: CreateExternalProvider, mediaType: 'application/json' },
  response: ExternalProvider,
  etag: true,
  idempotencyKey: true,
  sideEffects: ['Creates the provider', 'Writes an audit record'],
  handle: async (ctx, { body }) => {
    const at = ctx.now.toISOString();
    const provider: StoredProvider = {
      id: newUlid(ctx.now.getTime()),
      name: body.name,
      description: body.description ?? null,
      website: body.website ?? null,
      release_count: 0,
      created_at: at,
      updated_at: at,
      version: 1,
      created_by: ctx.caller.userId,
    };
    return {
      data: providerView(provider),
      etag: providerEtag(provider),
      location: urlOf(getExternalProvider, { provider: provider.id }),
      auditTarget: { provider: provider.id },
      writes: createProviderWrites(provider),
    };
  },
});

export const getExternalProvider = operation({
  id: 'getExternalProvider',
  method: 'GET',
  path: PROVIDER_PATH,
  summary: 'Read a shared external provider with its ETag.',
  description:
    'release_count counts its assurance releases, drafts included. The ETag is the one updateExternalProvider and deleteExternalProvider name in If-Match.',
  credential: ['administration'],
  permission: HIERARCHY,
  success: 200,
  params: ProviderParams,
  query: NoQuery,
  response: ExternalProvider,
  etag: true,
  sideEffects: [],
  prefetch: providerPrefetch,
  handle: async (ctx, { params }) => {
    const provider = providerOf(ctx, params.provider);
    return { data: providerView(provider), etag: providerEtag(provider) };
  },
});

export const updateExternalProvider = operation({
  id: 'updateExternalProvider',
  method: 'PATCH',
  path: PROVIDER_PATH,
  summary: 'Edit a provider (JSON merge patch, If-Match).',
  description:
    'Omitted properties are kept and null clears a nullable one. The provider ETag also moves when a release is added or deleted, so read again after such a change before editing.',
  credential: ['administration'],
  permission: HIERARCHY,
  success: 200,
  params: ProviderParams,
  query: NoQuery,
  body: { schema: UpdateExternalProvider, mediaType: 'application/merge-patch+json' },
  response: ExternalProvider,
  etag: true,
  ifMatch: true,
  sideEffects: ['Updates the provider', 'Writes an audit record'],
  prefetch: providerPrefetch,
  handle: async (ctx, { params, body }) => {
    const current = providerOf(ctx, params.provider);
    requireIfMatch(ctx.ifMatch, providerEtag(current));
    const fields = { ...body, updated_at: ctx.now.toISOString() };
    const next: StoredProvider = { ...current, ...fields, version: current.version + 1 };
    return {
      data: providerView(next),
      etag: providerEtag(next),
      writes: [updateProviderWrite(current, fields)],
      auditDetails: { changed_fields: Object.keys(body).join(',') },
    };
  },
});

const providerSelected = () =>
  conflict('provider_release_selected', 'A project scope selects a release of this provider; it can be deleted once no project selects one.');

const providerHasArtefacts = () => conflict('provider_has_artefacts', 'Delete the artefacts of the provider first.');

export const deleteExternalProvider = operation({
  id: 'deleteExternalProvider',
  method: 'DELETE',
  path: PROVIDER_PATH,
  summary: 'Delete a provider and its assurance releases (If-Match).',
  description:
    'A provider with releases needs publish-provider-assurance-packages too; its releases are deleted with it. Refused (409 provider_release_selected) while a project scope selects one of its releases, and (409 provider_has_artefacts) while it has artefacts.',
  credential: ['administration'],
  permission: HIERARCHY,
  success: 200,
  params: ProviderParams,
  query: NoQuery,
  response: () => z.object({ id: z.string(), deleted: z.literal(true), deleted_releases: z.number().int().min(0) }),
  ifMatch: true,
  errors: [409],
  sideEffects: ['Deletes the provider and its assurance releases', 'Queues the purge of what its partition holds', 'Writes an audit record'],
  prefetch: providerPrefetch,
  handle: async (ctx, { params }) => {
    const provider = providerOf(ctx, params.provider);
    if (provider.release_count > 0 && !ctx.caller.permissions.has('publish-provider-assurance-packages')) {
      throw forbidden('permission_denied', 'Deleting a provider that has assurance releases needs publish-provider-assurance-packages.');
    }
    requireIfMatch(ctx.ifMatch, providerEtag(provider));
    if (hasArtefacts(provider)) throw providerHasArtefacts();
    const releases = provider.release_count > 0 ? await allReleases(provider.id) : [];
    return {
      data: { id: provider.id, deleted: true as const, deleted_releases: releases.length },
      writes: [
        ...deleteProviderWrites(provider, releases, providerSelected, providerHasArtefacts),
        purgeMarkerWrite({ provider_id: provider.id }, ctx.caller.userId, ctx.now),
      ],
      auditDetails: { deleted_releases: releases.length },
    };
  },
});

export const providerOperations = [listExternalProviders, createExternalProvider, getExternalProvider, updateExternalProvider, deleteExternalProvider];
