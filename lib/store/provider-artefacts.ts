import * as z from 'zod';
import { ARTEFACT_KINDS, type StoredArtefact } from '../domain/provider-artefacts.js';
import type { StoredRelease } from '../domain/providers.js';
import { notFound, preconditionFailed } from '../errors.js';
import { attributeEquals, itemAbsent, itemPresent, type Condition } from './conditions.js';
import { parseStored } from './entity.js';
import { keys, prefixes } from './keys.js';
import { queryPage, type Item } from './read.js';
import type { WriteItem } from './transact.js';
import { draftUnchanged, releaseRefusal } from './providers.js';
import { once } from '../domain/validation.js';

/**
 * An artefact as stored under keys.providerArtefact. A link's file fields stay null; a file's are
 * mirrored from its upload by the scan pipeline, which also writes what other owners show
 * (width, height) and passes through.
 */
export const artefactSchema = once(
  () =>
    z.looseObject({
      id: z.string(),
      provider_id: z.string(),
      release_id: z.string().nullable(),
      kind: z.enum(ARTEFACT_KINDS),
      name: z.string(),
      url: z.string().nullable(),
      restricted: z.boolean(),
      ism_version_id: z.string().nullable(),
      upload_id: z.string().nullable(),
      file_status: z.enum(['quarantine', 'ready', 'error']).nullable(),
      error_code: z.string().nullable(),
      file_name: z.string().nullable(),
      size: z.number().int().nullable(),
      sha256: z.string().nullable(),
      detected_type: z.string().nullable(),
      s3_key: z.string().nullable(),
      created_at: z.string(),
      updated_at: z.string(),
      created_by: z.string(),
      version: z.number().int(),
    }) satisfies z.ZodType<StoredArtefact>,
);

/**
 * Provider artefacts (`PK=PROVIDER#<provider>`, `SK=ARTEFACT#<artefact>`), listed oldest first by
 * a strongly consistent Query of the provider's partition. The provider counts them
 * (`artefact_count`, `restricted_artefact_count`: the totals of the two list views); a release
 * counts its own in `artefacts`, which its ETag names.
 */
export const toArtefact = (item: Item): StoredArtefact => parseStored(artefactSchema(), item);

const artefactItem = (a: StoredArtefact) => ({ ...keys.providerArtefact(a.provider_id, a.id), entity: 'provider-artefact', ...a });

/** The provider's counters moved by `sign` for these artefacts; the provider must still exist. */
function providerCounts(providerId: string, artefacts: readonly StoredArtefact[], sign: 1 | -1): WriteItem {
  const restricted = artefacts.filter((a) => a.restricted).length;
  return {
    kind: 'update',
    key: keys.externalProvider(providerId),
    update: 'ADD #all :all, #restricted :restricted',
    names: { '#all': 'artefact_count', '#restricted': 'restricted_artefact_count' },
    values: { ':all': sign * artefacts.length, ':restricted': sign * restricted },
    condition: itemPresent(),
    onConditionFailed: () => notFound(),
  };
}

/** The release's artefact count moved by `delta`, while it is still a draft (and, given `asRead`, still the one the client's ETag named). */
function releaseCount(release: Pick<StoredRelease, 'provider_id' | 'id'>, delta: number, onPublished: () => Error, asRead?: StoredRelease): WriteItem {
  const condition: Condition = asRead ? draftUnchanged(asRead) : attributeEquals('status', 'draft');
  return {
    kind: 'update',
    key: keys.assuranceRelease(release.provider_id, release.id),
    update: 'ADD #n :d',
    names: { '#n': 'artefacts' },
    values: { ':d': delta },
    condition,
    onConditionFailed: releaseRefusal(onPublished),
  };
}

/**
 * New artefacts of one provider, in one transaction with their counts: of the release when they
 * belong to one (`asRead` makes the write conditional on the release ETag the client sent).
 */
export function createArtefactsWrites(
  providerId: string,
  artefacts: readonly StoredArtefact[],
  release: { release: Pick<StoredRelease, 'provider_id' | 'id'>; asRead?: StoredRelease; onPublished: () => Error } | undefined,
): WriteItem[] {
  return [
    ...artefacts.map((a): WriteItem => ({ kind: 'put', item: artefactItem(a), condition: itemAbsent() })),
    providerCounts(providerId, artefacts, 1),
    ...(release ? [releaseCount(release.release, artefacts.length, release.onPublished, release.asRead)] : []),
  ];
}

/**
 * The artefact as the client's ETag named it, and its counts; an artefact of a published release
 * stays (the caller's 409). A file's released object stays too (an identical upload to the same
 * provider reuses it): its upload is noted in the partition, for the provider's purge to delete.
 */
export function deleteArtefactWrites(a: StoredArtefact, onPublished: () => Error, now: Date): WriteItem[] {
  const file: WriteItem[] = a.upload_id
    ? [
        {
          kind: 'put',
          item: {
            ...keys.deletedArtefactFile(a.provider_id, a.upload_id),
            entity: 'deleted-artefact-file',
            upload_id: a.upload_id,
            artefact_id: a.id,
            deleted_at: now.toISOString(),
          },
        },
      ]
    : [];
  return [
    ...file,
    {
      kind: 'delete',
      key: keys.providerArtefact(a.provider_id, a.id),
      condition: attributeEquals('version', a.version),
      onConditionFailed: (current) => (current ? preconditionFailed() : notFound()),
    },
    providerCounts(a.provider_id, [a], -1),
    ...(a.release_id ? [releaseCount({ provider_id: a.provider_id, id: a.release_id }, -1, onPublished)] : []),
  ];
}

/** A page of the provider's artefacts, oldest first; restricted ones only when `withRestricted`. */
export async function artefactsPage(providerId: string, withRestricted: boolean, page: { number: number; size: number }): Promise<StoredArtefact[]> {
  const items = await queryPage(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
      ...(withRestricted ? {} : { FilterExpression: '#r = :f', ExpressionAttributeNames: { '#r': 'restricted' } }),
      ExpressionAttributeValues: { ':pk': keys.externalProvider(providerId).PK, ':sk': prefixes.providerArtefact, ...(withRestricted ? {} : { ':f': false }) },
      ConsistentRead: true,
    },
    page,
  );
  return items.map(toArtefact);
}

/** The artefact's version moved on (its ETag with it), conditional on the version the client's ETag named. */
export function touchArtefactWrite(a: StoredArtefact, at: string): WriteItem {
  const condition = attributeEquals('version', a.version);
  return {
    kind: 'update',
    key: keys.providerArtefact(a.provider_id, a.id),
    update: 'SET #ver = :ver, #upd = :upd',
    names: { '#ver': 'version', '#upd': 'updated_at', ...condition.names },
    values: { ':ver': a.version + 1, ':upd': at, ...condition.values },
    condition,
    onConditionFailed: (current) => (current ? preconditionFailed() : notFound()),
  };
}
