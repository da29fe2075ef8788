import * as z from 'zod';
import { newUlid } from '../../domain/ids.js';
import { settings } from '../../config.js';
import { CreateSystem, System, systemView, UpdateSystem, type StoredSystem } from '../../domain/systems.js';
import { etagFor, requireIfMatch } from '../kernel/etag.js';
import { conflict, forbidden, notFound } from '../../errors.js';
import { keys } from '../../store/keys.js';
import { createSystemWrites, systemCount, systemsPage, updateSystemWrites } from '../../store/systems.js';
import { NoQuery, OrganisationParams, PageQuery, SystemParams } from '../kernel/common.js';
import { operation } from './declare.js';
import { systemOf } from './access.js';
import { urlOf } from '../kernel/router.js';

const ETAG_KIND = 'system';
const etagOf = (s: StoredSystem) => etagFor(ETAG_KIND, s.id, s.version);
const codeTaken = () => conflict('short_code_taken', 'Another system of this organisation already uses this short code.');
const licenceLimitReached = () => forbidden('licence_limit_reached', 'The organisation licence allows no more systems.');

export const listSystems = operation({
  id: 'listSystems',
  method: 'GET',
  path: '/organisations/{organisation}/systems',
  summary: 'List the organisation systems, oldest first. Without hierarchy authority, minimal discovery only (id, name, short_code).',
  description:
    "With manage-org-hierarchy each system is listed in full; with view-projects and manage-projects only id, name and short_code, enough to choose a system for a project. The total is the organisation's system count.",
  credential: ['organisation'],
  permission: { organisation: [['manage-org-hierarchy'], ['view-projects', 'manage-projects']] },
  success: 200,
  params: OrganisationParams,
  query: PageQuery,
  response: () => z.array(System()),
  paginated: true,
  sideEffects: [],
  prefetch: ({ organisation }) => [keys.organisationCounters(organisation)],
  handle: async (ctx, { params }) => {
    const full = ctx.caller.permissions.has('manage-org-hierarchy');
    const page = await systemsPage(params.organisation, ctx.page);
    const total = systemCount(ctx.prefetched(keys.organisationCounters(params.organisation)));
    return { data: page.map((s) => systemView(s, full)), total };
  },
});

export const createSystem = operation({
  id: 'createSystem',
  method: 'POST',
  path: '/organisations/{organisation}/systems',
  summary: 'Create a system (name, short_code unique per organisation), within the organisation licence limit.',
  description:
    'A short_code another system of the organisation uses is 409 short_code_taken. Refused with 403 licence_limit_reached when the organisation licence allows no more systems.',
  credential: ['organisation'],
  permission: { organisation: [['manage-org-hierarchy']] },
  success: 201,
  params: OrganisationParams,
  query: NoQuery,
  body: { schema: CreateSystem, mediaType: 'application/json' },
  response: System,
  etag: true,
  idempotencyKey: true,
  sideEffects: ['Creates the system', 'Counts against the organisation system licence', 'Writes an audit record'],
  prefetch: ({ organisation }) => [keys.organisation(organisation)],
  handle: async (ctx, { params, body }) => {
    if (!ctx.prefetched(keys.organisation(params.organisation))) throw notFound();
    const at = ctx.now.toISOString();
    const system: StoredSystem = {
      id: newUlid(ctx.now.getTime()),
      organisation_id: params.organisation,
      name: body.name,
      short_code: body.short_code,
      description: body.description ?? null,
      created_at: at,
      updated_at: at,
      version: 1,
    };
    return {
      data: systemView(system, true),
      etag: etagOf(system),
      location: urlOf(getSystem, { organisation: params.organisation, system: system.id }),
      auditTarget: { organisation: params.organisation, system: system.id },
      writes: createSystemWrites(system, settings().SYSTEM_LICENCE_LIMIT, licenceLimitReached, codeTaken),
    };
  },
});

export const getSystem = operation({
  id: 'getSystem',
  method: 'GET',
  path: '/organisations/{organisation}/systems/{system}',
  summary: 'Read a system identity with its ETag.',
  description: 'A system of another organisation is 404.',
  credential: ['organisation'],
  permission: { organisation: [['manage-org-hierarchy']] },
  success: 200,
  params: SystemParams,
  query: NoQuery,
  response: System,
  etag: true,
  sideEffects: [],
  prefetch: ({ organisation, system }) => [keys.system(organisation, system)],
  handle: async (ctx, { params }) => {
    const system = systemOf(ctx, params.organisation, params.system);
    return { data: systemView(system, true), etag: etagOf(system) };
  },
});

export const updateSystem = operation({
  id: 'updateSystem',
  method: 'PATCH',
  path: '/organisations/{organisation}/systems/{system}',
  summary: 'Edit a system identity (JSON merge patch, If-Match).',
  description: 'Omitted properties are kept and null clears a nullable one. A short_code another system of the organisation uses is 409 short_code_taken.',
  credential: ['organisation'],
  permission: { organisation: [['manage-org-hierarchy']] },
  success: 200,
  params: SystemParams,
  query: NoQuery,
  body: { schema: UpdateSystem, mediaType: 'application/merge-patch+json' },
  response: System,
  etag: true,
  ifMatch: true,
  errors: [409],
  sideEffects: ['Updates the system identity', 'Writes an audit record'],
  prefetch: ({ organisation, system }) => [keys.system(organisation, system)],
  handle: async (ctx, { params, body }) => {
    const current = systemOf(ctx, params.organisation, params.system);
    requireIfMatch(ctx.ifMatch, etagFor(ETAG_KIND, current.id, current.version));
    const next: StoredSystem = { ...current, ...body, updated_at: ctx.now.toISOString(), version: current.version + 1 };
    return { data: systemView(next, true), etag: etagOf(next), writes: updateSystemWrites(current, next, codeTaken) };
  },
});

export const systemOperations = [listSystems, createSystem, getSystem, updateSystem];
