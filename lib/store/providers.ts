import * as z from 'zod';
import { once } from '../domain/validation.js';
import { AssuranceRelease, COUNT_NAMES, ExternalProvider, ReleaseCounts, type StoredProvider, type StoredRelease } from '../domain/providers.js';
import { notFound, preconditionFailed } from '../errors.js';
import { absentOrZero, and, attributeEquals, itemAbsent, itemPresent, presentBelow, setFields, type Condition } from './conditions.js';
import { counterSchema, countOf, readCounts } from './counters.js';
import { parseStored } from './entity.js';
import { gsi1, keys, prefixes } from './keys.js';
import { queryAll, queryPage, type Item } from './read.js';
import type { OnConditionFailed, WriteItem } from './transact.js';
import { addToCounter, staleOrMissing } from './versioned.js';

/**
 * Providers (`PK=PROVIDER#<provider>`, `SK=PROVIDER`, listed through GSI1 `PROVIDERS`) and their
 * releases in the provider's partition. Edits are UpdateItems of the edited fields, so that the
 * counters other writes move (release counts, selections, artefact and assertion counts) are
 * never overwritten; every edit is conditional on the revision and the counters the client's
 * ETag named.
 */
export const PROVIDER_COUNTER = 'providers';
export const PUBLISHED_COUNTER = 'published-releases';
/** The published-release counter's attribute for one ISM release: the total of a filtered options list. */
export const publishedOfIsm = (ismVersionId: string) => `ism_${ismVersionId}`;

/** The provider's artefact counts (the totals of the two list views), moved by the artefact writes (provider-artefacts.ts). */
export interface ArtefactCounts {
  artefact_count?: number;
  restricted_artefact_count?: number;
}

/** A provider as the store reads it: the domain's fields and its artefact counts. */
export type ProviderItem = StoredProvider & ArtefactCounts;

/**
 * A provider as stored under keys.externalProvider: what the API shows, its revision and creator;
 * the counters other writes ADD (`selections`, `artefact_count`, `restricted_artefact_count`) are
 * absent until first moved.
 */
export const providerSchema = once(
  () =>
    z.looseObject({
      ...ExternalProvider().shape,
      version: z.number().int(),
      created_by: z.string(),
      selections: z.number().int().optional(),
      artefact_count: z.number().int().nonnegative().optional(),
      restricted_artefact_count: z.number().int().nonnegative().optional(),
    }) satisfies z.ZodType<ProviderItem>,
);

/** A release as stored under keys.assuranceRelease: the API's fields with its counts flat beside them, its revision and creator. */
export const assuranceReleaseSchema = once(
  () =>
    z.looseObject({
      ...AssuranceRelease().omit({ counts: true }).shape,
      ...ReleaseCounts().shape,
      revision: z.number().int(),
      created_by: z.string(),
    }) satisfies z.ZodType<StoredRelease>,
);

export const toProvider = (item: Item): ProviderItem => parseStored(providerSchema(), item);

/** Whether a provider has artefacts: deleting it waits until they are gone. */
export const hasArtefacts = (p: ArtefactCounts): boolean => (p.artefact_count ?? 0) > 0;

/** The total of a provider's artefact list: without restricted ones for a caller who may not see them. */
export const artefactTotal = (p: ArtefactCounts, withRestricted: boolean): number =>
  (p.artefact_count ?? 0) - (withRestricted ? 0 : (p.restricted_artefact_count ?? 0));

/** The provider counter (keys.counter(PROVIDER_COUNTER)) and the published-release counter, by ISM release beside the total. */
const providerCounterSchema = once(() => counterSchema(['count']));
const publishedCounterSchema = once(() => counterSchema(['count'], [publishedOfIsm('')]));

/** The total of the provider list. */
export const providerCount = (counter: Item | undefined): number => countOf(readCounts(providerCounterSchema(), counter), 'count');

/** The total of the options list: the published releases, of one ISM release when given. */
export const publishedCount = (counter: Item | undefined, ismVersionId: string | undefined): number =>
  countOf(readCounts(publishedCounterSchema(), counter), ismVersionId ? publishedOfIsm(ismVersionId) : 'count');
export const toRelease = (item: Item): StoredRelease => parseStored(assuranceReleaseSchema(), item);

const providerItem = (p: StoredProvider) => ({
  ...keys.externalProvider(p.id),
  entity: 'external-provider',
  GSI1PK: gsi1.externalProviders,
  GSI1SK: p.id,
  ...p,
});

/** The sort key of a published release in GSI1: options list by ISM release, then provider, then release. */
export const publishedSortKey = (r: Pick<StoredRelease, 'ism_version_id' | 'provider_id' | 'id'>) => `${r.ism_version_id}#${r.provider_id}#${r.id}`;

/** A release as created: a draft, which joins the options index only when published. */
const draftItem = (r: StoredRelease) => ({ ...keys.assuranceRelease(r.provider_id, r.id), entity: 'assurance-release', ...r });

export function createProviderWrites(p: StoredProvider): WriteItem[] {
  return [{ kind: 'put', item: providerItem(p), condition: itemAbsent() }, addToCounter(keys.counter(PROVIDER_COUNTER), 'count', 1)];
}

const providerUnchanged = (p: StoredProvider) => and(attributeEquals('version', p.version), attributeEquals('release_count', p.release_count));

/** The edited fields of a provider, if it is still the one the client saw. */
export function updateProviderWrite(before: StoredProvider, fields: Record<string, unknown>): WriteItem {
  const set = setFields({ ...fields, version: before.version + 1 });
  return {
    kind: 'update',
    key: keys.externalProvider(before.id),
    update: set.expression,
    names: set.names,
    values: set.values,
    condition: providerUnchanged(before),
    onConditionFailed: staleOrMissing,
  };
}

/**
 * The provider and every release of it, in one transaction: refused while a project scope
 * selects one of its releases (`selections`) or while it has artefacts (which go first), and when a
 * release came or went since the read.
 */
export function deleteProviderWrites(p: StoredProvider, releases: readonly StoredRelease[], onSelected: () => Error, onArtefacts: () => Error): WriteItem[] {
  const published = releases.filter((r) => r.status === 'published');
  return [
    {
      kind: 'delete',
      key: keys.externalProvider(p.id),
      condition: and(providerUnchanged(p), absentOrZero('selections'), absentOrZero('artefact_count')),
      onConditionFailed: (current) => {
        if (!current) return notFound();
        const now = toProvider({ ...current, ...keys.externalProvider(p.id) });
        if (now.version !== p.version || now.release_count !== p.release_count) return preconditionFailed();
        return hasArtefacts(now) ? onArtefacts() : onSelected();
      },
    },
    ...releases.map(
      // Still as read: a release published meanwhile would leave the published counts behind.
      (r): WriteItem => ({
        kind: 'delete',
        key: keys.assuranceRelease(p.id, r.id),
        condition: attributeEquals('status', r.status),
        onConditionFailed: () => preconditionFailed(),
      }),
    ),
    addToCounter(keys.counter(PROVIDER_COUNTER), 'count', -1),
    ...(published.length ? [publishedCounterWrite(published, -1)] : []),
  ];
}

function publishedCounterWrite(releases: readonly StoredRelease[], sign: 1 | -1): WriteItem {
  const byIsm = new Map<string, number>();
  for (const r of releases) byIsm.set(r.ism_version_id, (byIsm.get(r.ism_version_id) ?? 0) + sign);
  const names: Record<string, string> = { '#count': 'count' };
  const values: Record<string, unknown> = { ':count': sign * releases.length };
  const parts = ['#count :count'];
  [...byIsm].forEach(([ism, n], i) => {
    names[`#ism${i}`] = publishedOfIsm(ism);
    values[`:ism${i}`] = n;
    parts.push(`#ism${i} :ism${i}`);
  });
  return { kind: 'update', key: keys.counter(PUBLISHED_COUNTER), update: `ADD ${parts.join(', ')}`, names, values };
}

export async function providersPage(page: { number: number; size: number }): Promise<StoredProvider[]> {
  const items = await queryPage(
    { IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :pk', ExpressionAttributeValues: { ':pk': gsi1.externalProviders } },
    page,
  );
  return items.map(toProvider);
}

/** A new draft, counted on its provider (which must still exist) up to the release limit. */
export function createReleaseWrites(r: StoredRelease, limit: number, onLimit: () => Error): WriteItem[] {
  return [
    { kind: 'put', item: draftItem(r), condition: itemAbsent() },
    {
      kind: 'update',
      key: keys.externalProvider(r.provider_id),
      update: 'ADD #n :one',
      names: { '#n': 'release_count' },
      values: { ':one': 1 },
      // release_count is written with the provider, so the comparison also fails on a provider that is gone.
      condition: presentBelow('release_count', limit),
      onConditionFailed: (current) => (current ? onLimit() : notFound()),
    },
  ];
}

/** The release is still the draft the client's ETag named: same revision, same counts. */
export function draftUnchanged(r: StoredRelease): Condition {
  return and(attributeEquals('revision', r.revision), attributeEquals('status', 'draft'), ...COUNT_NAMES.map((c) => attributeEquals(c, r[c])));
}

/** A refused release write: gone (404), published meanwhile (the caller's 409), or changed (412). */
export const releaseRefusal =
  (onPublished: () => Error): OnConditionFailed =>
  (current) => {
    if (!current) return notFound();
    return current.status === 'published' ? onPublished() : preconditionFailed();
  };

export function updateReleaseWrite(before: StoredRelease, fields: Record<string, unknown>, onPublished: () => Error): WriteItem {
  const set = setFields({ ...fields, revision: before.revision + 1 });
  return {
    kind: 'update',
    key: keys.assuranceRelease(before.provider_id, before.id),
    update: set.expression,
    names: set.names,
    values: set.values,
    condition: draftUnchanged(before),
    onConditionFailed: releaseRefusal(onPublished),
  };
}

export function deleteReleaseWrites(r: StoredRelease, onPublished: () => Error): WriteItem[] {
  return [
    { kind: 'delete', key: keys.assuranceRelease(r.provider_id, r.id), condition: draftUnchanged(r), onConditionFailed: releaseRefusal(onPublished) },
    addToCounter(keys.externalProvider(r.provider_id), 'release_count', -1),
  ];
}

/** Publication: the release freezes and joins the options index and its counts. */
export function publishReleaseWrites(before: StoredRelease, after: StoredRelease, onPublished: () => Error): WriteItem[] {
  const fields = {
    status: after.status,
    published_at: after.published_at,
    published_by: after.published_by,
    updated_at: after.updated_at,
    GSI1PK: gsi1.publishedReleases,
    GSI1SK: publishedSortKey(after),
  };
  return [updateReleaseWrite(before, fields, onPublished), publishedCounterWrite([after], 1)];
}

/** A provider's releases, oldest first, from its partition (strongly consistent). */
export async function releasesPage(providerId: string, page: { number: number; size: number }): Promise<StoredRelease[]> {
  const items = await queryPage(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
      ExpressionAttributeValues: { ':pk': keys.externalProvider(providerId).PK, ':sk': prefixes.assuranceRelease },
      ConsistentRead: true,
    },
    page,
  );
  return items.map(toRelease);
}

/** Published releases in options order, of one ISM release when given (GSI1, eventually consistent). */
export async function publishedReleasesPage(ismVersionId: string | undefined, page: { number: number; size: number }): Promise<StoredRelease[]> {
  const items = await queryPage(
    {
      IndexName: 'GSI1',
      KeyConditionExpression: ismVersionId ? 'GSI1PK = :pk AND begins_with(GSI1SK, :sk)' : 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': gsi1.publishedReleases, ...(ismVersionId ? { ':sk': `${ismVersionId}#` } : {}) },
    },
    page,
  );
  return items.map(toRelease);
}

/** Every published release, in options order: what project setup may select (GSI1, eventually consistent). */
export async function allPublishedReleases(): Promise<StoredRelease[]> {
  const items = await queryAll({ IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :pk', ExpressionAttributeValues: { ':pk': gsi1.publishedReleases } });
  return items.map(toRelease);
}

/** Every release of a provider (at most RELEASE_LIMIT), strongly consistent: what its deletion removes. */
export async function allReleases(providerId: string): Promise<StoredRelease[]> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
    ExpressionAttributeValues: { ':pk': keys.externalProvider(providerId).PK, ':sk': prefixes.assuranceRelease },
    ConsistentRead: true,
  });
  return items.map(toRelease);
}

/**
 * How many saved project scopes select a release of each provider, moved by the scope save that
 * changes them; the provider must still exist, so a selection never outlives its provider.
 */
export function selectionWrites(deltas: ReadonlyMap<string, number>, onProviderGone: () => Error): WriteItem[] {
  return [...deltas].map(([providerId, delta]) => ({
    kind: 'update',
    key: keys.externalProvider(providerId),
    update: 'ADD #sel :d',
    names: { '#sel': 'selections' },
    values: { ':d': delta },
    condition: itemPresent(),
    onConditionFailed: onProviderGone,
  }));
}
