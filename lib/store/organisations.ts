import * as z from 'zod';
import { settings } from '../config.js';
import { Organisation } from '../domain/organisations.js';
import { itemAbsent, ownedBy } from './conditions.js';
import { parseStored, storedSchema } from './entity.js';
import { addToCounter, replaceVersioned } from './versioned.js';
import { keys, prefixes } from './keys.js';
import { getMany, getOne, queryAll, type Item } from './read.js';
import type { OnConditionFailed, WriteItem } from './transact.js';
import { once } from '../domain/validation.js';

export const ORGANISATION_COUNTER = 'organisations';

export interface StoredOrganisation extends Organisation {
  version: number;
  created_by: string;
  /** Licence terms, fixed at creation from the installation's settings; absent on organisations created before there were any. */
  licensed_classifications?: string[];
}

/** An organisation as stored under keys.organisation. */
export const organisationSchema = once(() =>
  storedSchema<StoredOrganisation>()(
    z.looseObject({
      ...Organisation().shape,
      version: z.number(),
      created_by: z.string(),
      licensed_classifications: z.array(z.string()).optional(),
    }),
  ),
);

export function newOrganisation(input: {
  id: string;
  name: string;
  slug: string;
  timezone: string;
  createdBy: string;
  now: Date;
  notes?: string;
}): StoredOrganisation {
  const at = input.now.toISOString();
  return {
    id: input.id,
    name: input.name,
    slug: input.slug,
    timezone: input.timezone,
    contact_name: null,
    contact_email: null,
    contact_phone: null,
    notes: input.notes ?? null,
    created_at: at,
    updated_at: at,
    version: 1,
    created_by: input.createdBy,
    licensed_classifications: settings().LICENSED_CLASSIFICATIONS,
  };
}

export const toOrganisation = (item: Item): StoredOrganisation => parseStored(organisationSchema(), item);

export function organisationPut(org: StoredOrganisation) {
  return { ...keys.organisation(org.id), entity: 'organisation', ...org };
}

export async function slugTaken(slug: string): Promise<boolean> {
  return (await getOne(keys.organisationSlug(slug))) !== undefined;
}

/** A new organisation: identity, slug claim, licence counter and the creator's discovery entry. */
export function createOrganisationWrites(org: StoredOrganisation, licenceLimit: number, onLimit: () => Error, onSlugTaken: OnConditionFailed): WriteItem[] {
  return [
    { kind: 'put', item: organisationPut(org), condition: itemAbsent() },
    {
      kind: 'put',
      item: { ...keys.organisationSlug(org.slug), entity: 'organisation-slug', organisation_id: org.id },
      condition: itemAbsent(),
      onConditionFailed: onSlugTaken,
    },
    addToCounter(keys.counter(ORGANISATION_COUNTER), 'count', 1, { max: licenceLimit, onLimit }),
    {
      kind: 'put',
      item: { ...keys.organisationVisibility(org.created_by, org.id), entity: 'organisation-visibility', organisation_id: org.id },
    },
  ];
}

/** Replaces the identity if the stored version is still the one the client saw; moves the slug claim. */
export function updateOrganisationWrites(before: StoredOrganisation, after: StoredOrganisation, onSlugTaken: OnConditionFailed): WriteItem[] {
  const writes: WriteItem[] = [replaceVersioned(organisationPut(after), before.version)];
  if (after.slug !== before.slug) {
    writes.push(
      { kind: 'delete', key: keys.organisationSlug(before.slug), condition: ownedBy('organisation_id', before.id) },
      {
        kind: 'put',
        item: { ...keys.organisationSlug(after.slug), entity: 'organisation-slug', organisation_id: after.id },
        condition: itemAbsent(),
        onConditionFailed: onSlugTaken,
      },
    );
  }
  return writes;
}

/**
 * The organisations an Administration actor may see (those it holds organisation access to and
 * those it created), oldest first: ULIDs sort by creation. Two Queries on the actor's partition,
 * in parallel and reading keys only; the caller reads just the page it needs.
 */
export async function visibleOrganisationIds(userId: string): Promise<string[]> {
  const entries = (prefix: string) =>
    queryAll({
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
      ExpressionAttributeValues: { ':pk': keys.user(userId).PK, ':sk': prefix },
      ProjectionExpression: 'SK',
    });
  const found = await Promise.all([entries(prefixes.organisationAccess), entries(prefixes.organisationVisibility)]);
  return [...new Set(found.flat().map(({ SK }) => SK.slice(SK.lastIndexOf('#') + 1)))].sort();
}

export async function organisationsByIds(ids: string[]): Promise<StoredOrganisation[]> {
  const found = await getMany(ids.map((id) => keys.organisation(id)));
  return [...found.values()].map(toOrganisation).sort((a, b) => a.id.localeCompare(b.id));
}
