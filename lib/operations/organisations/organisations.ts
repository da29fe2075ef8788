import * as z from 'zod';
import { newUlid } from '../../domain/ids.js';
import { settings } from '../../config.js';
import { applyOrganisationPatch, CreateOrganisation, Organisation, slugify, UpdateOrganisation } from '../../domain/organisations.js';
import { etagFor, requireIfMatch } from '../kernel/etag.js';
import { conflict, forbidden, notFound, RetryableConflict } from '../../errors.js';
import { keys } from '../../store/keys.js';
import {
  createOrganisationWrites,
  newOrganisation,
  slugTaken,
  toOrganisation,
  updateOrganisationWrites,
  organisationsByIds,
  visibleOrganisationIds,
  type StoredOrganisation,
} from '../../store/organisations.js';
import { NoQuery, OrganisationParams, PageQuery } from '../kernel/common.js';
import type { Caller, OperationContext } from '../kernel/operation.js';
import { operation } from './declare.js';
import { urlOf } from '../kernel/router.js';

const ETAG_KIND = 'organisation';

const publicView = ({ version: _v, created_by: _c, licensed_classifications: _l, ...org }: StoredOrganisation): Organisation => org;
const etagOf = (org: StoredOrganisation) => etagFor(ETAG_KIND, org.id, org.version);

const licenceLimitReached = () => forbidden('licence_limit_reached', 'The installation licence allows no more organisations.');
const slugConflict = () => conflict('slug_taken', 'Another organisation already uses this slug.');

/** Administration credentials see organisations their actor may see; organisation credentials their own. */
function readableOrganisation(ctx: OperationContext, organisationId: string): StoredOrganisation {
  const item = ctx.prefetched(keys.organisation(organisationId));
  if (!item) throw notFound();
  if (ctx.caller.type === 'administration' && !administrationMaySee(ctx, ctx.caller, organisationId)) throw notFound();
  return toOrganisation(item);
}

function administrationMaySee(ctx: OperationContext, caller: Caller, organisationId: string): boolean {
  return (
    ctx.prefetched(keys.organisationVisibility(caller.userId, organisationId)) !== undefined ||
    ctx.prefetched(keys.organisationAccess(caller.userId, organisationId)) !== undefined
  );
}

export const listOrganisations = operation({
  id: 'listOrganisations',
  method: 'GET',
  path: '/organisations',
  summary: 'List the organisation identities this Administration actor may see, oldest first (50 a page by default).',
  description:
    'An organisation is visible to the actor when they created it or hold access in it. Only the identity is listed: no members, contexts or projects.',
  credential: ['administration'],
  permission: { administration: [['manage-org-hierarchy']] },
  success: 200,
  params: () => z.strictObject({}),
  query: PageQuery,
  response: () => z.array(Organisation()),
  paginated: true,
  sideEffects: [],
  handle: async (ctx) => {
    const ids = await visibleOrganisationIds(ctx.caller.userId);
    const start = (ctx.page.number - 1) * ctx.page.size;
    const page = await organisationsByIds(ids.slice(start, start + ctx.page.size));
    return { data: page.map(publicView), total: ids.length };
  },
});

export const createOrganisation = operation({
  id: 'createOrganisation',
  method: 'POST',
  path: '/organisations',
  summary: 'Create an organisation (name and timezone). No members, owners, teams, roles or permissions are created.',
  description:
    'The slug is derived from the name; when another organisation holds it, a suffix from the new ID is added. Refused with 403 licence_limit_reached when the installation licence allows no more organisations. The actor who creates it may see it afterwards (listOrganisations); no access is granted in it.',
  credential: ['administration'],
  permission: { administration: [['manage-org-hierarchy']] },
  success: 201,
  params: () => z.strictObject({}),
  query: NoQuery,
  body: { schema: CreateOrganisation, mediaType: 'application/json' },
  response: Organisation,
  etag: true,
  idempotencyKey: true,
  sideEffects: ['Creates the organisation identity', 'Counts against the organisation licence limit', 'Writes an audit record'],
  handle: async (ctx, { body }) => {
    const id = newUlid(ctx.now.getTime());
    const wanted = slugify(body.name);
    const slug = (await slugTaken(wanted)) ? `${wanted.slice(0, 50)}-${id.slice(-8).toLowerCase()}` : wanted;
    const org = newOrganisation({ id, name: body.name, slug, timezone: body.timezone, createdBy: ctx.caller.userId, now: ctx.now });
    return {
      data: publicView(org),
      etag: etagOf(org),
      location: urlOf(getOrganisation, { organisation: id }),
      auditTarget: { organisation: id },
      // The slug was free when checked; losing it to a concurrent create means a fresh run picks another.
      writes: createOrganisationWrites(org, settings().ORGANISATION_LICENCE_LIMIT, licenceLimitReached, () => new RetryableConflict(slugConflict())),
    };
  },
});

export const getOrganisation = operation({
  id: 'getOrganisation',
  method: 'GET',
  path: '/organisations/{organisation}',
  summary: 'Read an organisation identity with its ETag.',
  description:
    'Administration credentials read only organisations their actor may see (404 otherwise); organisation credentials read their own organisation with manage-org-hierarchy or view-projects.',
  credential: ['administration', 'organisation'],
  permission: {
    administration: [['manage-org-hierarchy']],
    organisation: [['manage-org-hierarchy'], ['view-projects']],
  },
  success: 200,
  params: OrganisationParams,
  query: NoQuery,
  response: Organisation,
  etag: true,
  sideEffects: [],
  prefetch: ({ organisation }, claims) => [
    keys.organisation(organisation),
    keys.organisationVisibility(claims.userId, organisation),
    keys.organisationAccess(claims.userId, organisation),
  ],
  handle: async (ctx, { params }) => {
    const org = readableOrganisation(ctx, params.organisation);
    return { data: publicView(org), etag: etagOf(org) };
  },
});

export const updateOrganisation = operation({
  id: 'updateOrganisation',
  method: 'PATCH',
  path: '/organisations/{organisation}',
  summary: 'Edit allowlisted identity fields (JSON merge patch, If-Match).',
  description:
    'Only name, slug, timezone (an IANA name), contact fields and notes are writable; omitted properties are kept and null clears a nullable one. A slug another organisation uses is 409 slug_taken.',
  credential: ['organisation'],
  permission: { organisation: [['manage-org-hierarchy']] },
  success: 200,
  params: OrganisationParams,
  query: NoQuery,
  body: { schema: UpdateOrganisation, mediaType: 'application/merge-patch+json' },
  response: Organisation,
  etag: true,
  ifMatch: true,
  errors: [409],
  sideEffects: ['Updates the organisation identity', 'Writes an audit record'],
  prefetch: ({ organisation }) => [keys.organisation(organisation)],
  handle: async (ctx, { params, body }) => {
    const current = readableOrganisation(ctx, params.organisation);
    requireIfMatch(ctx.ifMatch, etagFor(ETAG_KIND, current.id, current.version));
    const next: StoredOrganisation = { ...current, ...applyOrganisationPatch(publicView(current), body, ctx.now), version: current.version + 1 };
    return {
      data: publicView(next),
      etag: etagOf(next),
      writes: updateOrganisationWrites(current, next, slugConflict),
    };
  },
});

export const organisationOperations = [listOrganisations, createOrganisation, getOrganisation, updateOrganisation];
