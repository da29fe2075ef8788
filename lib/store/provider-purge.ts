import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { once } from '../domain/validation.js';
import { releaseAssertionPrefix } from './assertions.js';
import { ddb, tableName } from './client.js';
import { and, type Condition, itemPresent } from './conditions.js';
import { parseEach, parseStored, sweptFields } from './entity.js';
import { gsi1, type Key, keys, prefixes } from './keys.js';
import { type Item, getOne, queryAll, queryPages } from './read.js';
import type { WriteItem } from './transact.js';
import { updateIf } from './update.js';

/**
 * What a deleted provider or release leaves in the provider's partition (assertions with their
 * control index items, import runs, deleted artefacts' files) is purged by a job. Its durable
 * request is a marker in the same partition (`SK=PURGE#RELEASE#<release>` or `PURGE#PROVIDER`),
 * written in the deleting transaction and listed in GSI1 (`PURGE_PENDING`, by request time) so
 * that the sweep queues the job again when it was lost. The job removes the marker last.
 */
export interface PurgeSubject {
  provider_id: string;
  /** The deleted release; absent when the whole provider was deleted. */
  release_id?: string;
}

export function purgeMarkerItem(subject: PurgeSubject, requestedBy: string, now: Date): Item {
  const at = now.toISOString();
  return {
    ...keys.providerPurge(subject.provider_id, subject.release_id),
    entity: 'provider-purge',
    provider_id: subject.provider_id,
    release_id: subject.release_id ?? null,
    requested_at: at,
    requested_by: requestedBy,
    GSI1PK: gsi1.pendingPurges,
    GSI1SK: `${at}#${subject.provider_id}#${subject.release_id ?? ''}`,
  };
}

/** The marker, in the deleting transaction. */
export const purgeMarkerWrite = (subject: PurgeSubject, requestedBy: string, now: Date): WriteItem => ({
  kind: 'put',
  item: purgeMarkerItem(subject, requestedBy, now),
});

export const purgePending = async (subject: PurgeSubject): Promise<boolean> =>
  (await getOne(keys.providerPurge(subject.provider_id, subject.release_id))) !== undefined;

export async function removePurgeMarker(subject: PurgeSubject): Promise<void> {
  await ddb().send(new DeleteCommand({ TableName: tableName(), Key: keys.providerPurge(subject.provider_id, subject.release_id) }));
}

/** A marker as stored, with the worker's lease and the sweep's re-queue fields for the sweep to judge. */
const purgeMarkerSchema = once(() =>
  z.looseObject({ provider_id: z.string(), release_id: z.string().nullable(), requested_at: z.string(), requested_by: z.string(), ...sweptFields() }),
);
export type PurgeMarker = z.output<ReturnType<typeof purgeMarkerSchema>>;

export const toPurgeMarker = (item: Item): PurgeMarker => parseStored(purgeMarkerSchema(), item);

/** Markers of purges requested before `beforeIso`, oldest first. */
export const purgesRequestedBefore = async (beforeIso: string): Promise<PurgeMarker[]> =>
  parseEach(
    'purge marker',
    await queryAll({
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK < :before',
      ExpressionAttributeValues: { ':pk': gsi1.pendingPurges, ':before': beforeIso },
    }),
    toPurgeMarker,
  );

export const purgeSubjectOf = (marker: Pick<PurgeMarker, 'provider_id' | 'release_id'>): PurgeSubject => ({
  provider_id: marker.provider_id,
  ...(marker.release_id ? { release_id: marker.release_id } : {}),
});

/** Sets fields of the purge's marker (its lease, the sweep's re-queue) while it exists and `condition` holds; false otherwise. */
export const updatePurgeMarker = (subject: PurgeSubject, fields: Record<string, unknown>, condition: Condition = itemPresent()): Promise<boolean> =>
  updateIf(keys.providerPurge(subject.provider_id, subject.release_id), fields, and(itemPresent(), condition));

/**
 * What the purge needs of an item of the provider's partition, as purgePages projects it besides
 * its key and entity: a confirmed assertion's status, control and release (its control index
 * item), a deleted artefact's upload. A marker holds no release (null), nor does an artefact
 * outside one, nor an artefact without a file an upload.
 */
const purgeItemSchema = once(() =>
  z.looseObject({
    status: z.string().optional(),
    control_id: z.string().optional(),
    release_id: z.string().nullable().optional(),
    upload_id: z.string().nullable().optional(),
  }),
);
export type PurgeItem = Key & { entity?: string } & z.output<ReturnType<typeof purgeItemSchema>>;

/** An item the purge judges, with its key to delete it by and its entity (which parsing drops with the keys) to judge it by. */
export const toPurgeItem = (item: Item): PurgeItem => ({
  ...parseStored(purgeItemSchema(), item),
  PK: item.PK,
  SK: item.SK,
  ...(typeof item.entity === 'string' ? { entity: item.entity } : {}),
});

/**
 * The items of the provider's partition whose sort keys begin with `prefix` (every item, for an
 * empty prefix), of one release when `releaseId` is given, a page (at most 1 MB) at a time,
 * strongly consistent so that a write committed just before the deletion is seen. An item that
 * fails its schema stops the purge with its key, rather than be deleted without what it points
 * at: the job fails, and the sweep queues it again until the item is repaired.
 */
export async function* purgePages(providerId: string, prefix: string, releaseId?: string): AsyncGenerator<PurgeItem[]> {
  const pages = queryPages({
    KeyConditionExpression: prefix ? '#pk = :pk AND begins_with(#sk, :prefix)' : '#pk = :pk',
    ...(releaseId ? { FilterExpression: '#r = :r' } : {}),
    ProjectionExpression: '#pk, #sk, #e, #s, #c, #r, #u',
    ExpressionAttributeNames: { '#pk': 'PK', '#sk': 'SK', '#e': 'entity', '#s': 'status', '#c': 'control_id', '#r': 'release_id', '#u': 'upload_id' },
    ExpressionAttributeValues: {
      ':pk': keys.externalProvider(providerId).PK,
      ...(prefix ? { ':prefix': prefix } : {}),
      ...(releaseId ? { ':r': releaseId } : {}),
    },
    ConsistentRead: true,
  });
  for await (const items of pages) if (items.length) yield items.map(toPurgeItem);
}

/** The prefixes a release's purge reads: its assertions, and the provider's import runs (of which it keeps the release's). */
export const releasePurgePrefixes = (releaseId: string) => ({ assertions: releaseAssertionPrefix(releaseId), imports: prefixes.artefactImport });
