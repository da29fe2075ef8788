import { runAsFunction } from '../command-recording.js';
import { deleteObject } from '../files/storage.js';
import { toUpload } from '../files/uploads.js';
import { logger } from '../log.js';
import { deleteAll } from '../store/batch.js';
import { keys, type Key } from '../store/keys.js';
import {
  type PurgeItem,
  type PurgeSubject,
  purgePages,
  purgePending,
  purgeSubjectOf,
  purgesRequestedBefore,
  releasePurgePrefixes,
  removePurgeMarker,
  updatePurgeMarker,
} from '../store/provider-purge.js';
import { getMany } from '../store/read.js';
import { LEASE_SECONDS, leaseUntil, requeueFields, stalled, stillStalled } from '../queues/recovery.js';
import { sendJob } from '../queues/sqs.js';

/** Deletes are independent and unconditional: a few requests in flight keep a large provider within one delivery. */
const CONCURRENCY = 8;

const subjectOf = (message: Record<string, string | undefined>): PurgeSubject => ({
  provider_id: message.provider_id ?? '',
  ...(message.release_id ? { release_id: message.release_id } : {}),
});

/**
 * The purge job of a deleted provider or release: removes, page by page, what the deletion left
 * in the provider's partition, and the marker last. Nothing can write there any more (every
 * assertion and import write is conditional on its release, every artefact write on its
 * provider), so unconditional batch deletes suffice, and a redelivery deletes what is left.
 */
export function purgeProviderData(message: Record<string, string | undefined>): Promise<void> {
  // The job's entry point, for its worker and for tests that run the job directly.
  return runAsFunction('workers/purge', () => purgeOnce(subjectOf(message)));
}

async function purgeOnce(subject: PurgeSubject): Promise<void> {
  if (!(await purgePending(subject))) return;
  if (subject.release_id) {
    const { assertions, imports } = releasePurgePrefixes(subject.release_id);
    for await (const page of purgePages(subject.provider_id, assertions)) await purgePage(subject, page);
    for await (const page of purgePages(subject.provider_id, imports, subject.release_id)) await purgePage(subject, page);
  } else {
    for await (const page of purgePages(subject.provider_id, '')) await purgePage(subject, page);
  }
  await removePurgeMarker(subject);
  logger.info('provider data purged', { ...subject });
}

/**
 * One page: first what its items point at (confirmed assertions' control index items, deleted
 * artefacts' files and upload records), then the items, so that a crash in between leaves the
 * items to point at them again on redelivery. The marker of this purge goes last, apart.
 */
async function purgePage(subject: PurgeSubject, page: PurgeItem[]): Promise<void> {
  // Each page renews the marker's lease: the sweep leaves a purge alone while its job is alive.
  await updatePurgeMarker(subject, { lease_until: leaseUntil(new Date()) });
  const own = keys.providerPurge(subject.provider_id, subject.release_id).SK;
  const items = page.filter((i) => i.SK !== own);
  const index = items
    .filter((i) => i.entity === 'assertion' && i.status === 'confirmed' && i.control_id && i.release_id)
    .map((i) => keys.controlAssertion(i.control_id!, subject.provider_id, i.release_id!));
  await deleteAll(index, CONCURRENCY);
  await purgeFiles(items.flatMap((i) => (i.entity === 'deleted-artefact-file' && i.upload_id ? [i.upload_id] : [])));
  await deleteAll(
    items.map((i): Key => ({ PK: i.PK, SK: i.SK })),
    CONCURRENCY,
  );
}

/** The released objects of the deleted artefacts' uploads (reusable only by the same provider, now gone) and their records. */
async function purgeFiles(uploadIds: string[]): Promise<void> {
  if (!uploadIds.length) return;
  const uploads = await getMany(uploadIds.map((id) => keys.upload(id)));
  const objects = new Set([...uploads.values()].map((u) => toUpload(u).s3_key));
  for (const key of objects) await deleteObject(key);
  await deleteAll(
    uploadIds.flatMap((id) => [keys.upload(id), keys.uploadVerdict(id)]),
    CONCURRENCY,
  );
}

/**
 * Queues again the purges whose job was lost after their deletion committed, whose worker died
 * (its lease, renewed at every page, ran out) or whose job keeps failing: each at most once a
 * lease's length. A purge always finishes in the end (its deletes are unconditional), so it is
 * never given up.
 */
export async function sweepPurges(now: Date): Promise<number> {
  const markers = await purgesRequestedBefore(new Date(now.getTime() - LEASE_SECONDS * 1000).toISOString());
  const due: PurgeSubject[] = [];
  for (const marker of markers) {
    const subject = purgeSubjectOf(marker);
    if (stalled(marker, marker.requested_at, now) && (await updatePurgeMarker(subject, requeueFields(marker, now), stillStalled(now)))) due.push(subject);
  }
  const sent = await Promise.allSettled(due.map((subject) => sendJob('purge', { ...subject })));
  const failed = sent.filter((r) => r.status === 'rejected').length;
  if (failed) logger.warn('purges not re-queued; a later sweep tries again', { count: failed });
  return due.length - failed;
}
