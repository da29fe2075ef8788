import { createHash } from 'node:crypto';
import { newUlid } from '../domain/ids.js';
import { putAll } from '../store/batch.js';
import { forgetRelease } from '../store/catalogue-entries.js';
import { claimedReleaseId, claimVersion, type Release, toRelease } from '../store/catalogue-releases.js';
import { keys, prefixes } from '../store/keys.js';
import { getOne, queryAll } from '../store/read.js';
import { putItem } from '../store/update.js';
import { CatalogueError, type ParsedRelease } from '../domain/oscal.js';

export type { Release };

/** The release ULID of a version: the one it was first imported as, or a new one claimed now. */
async function releaseIdOf(version: string, now: Date): Promise<string> {
  const claimed = await claimedReleaseId(version);
  if (claimed) return claimed;
  const id = newUlid(now.getTime());
  return (await claimVersion(version, id)) ? id : releaseIdOf(version, now);
}

/**
 * Imports a release idempotently: the same version keeps its ULID, entries have keys fixed by
 * their position, and the release only lists as complete once every entry is written, so an
 * interrupted import is finished by running it again.
 */
export async function importRelease(parsed: ParsedRelease, options: { sample: boolean }, now: Date): Promise<Release> {
  const id = await releaseIdOf(parsed.version, now);
  const release: Release = {
    id,
    version: parsed.version,
    title: parsed.title,
    published: parsed.published,
    entries: parsed.entries.length,
    controls: parsed.entries.filter((e) => e.kind === 'control').length,
    principles: parsed.entries.filter((e) => e.kind === 'principle').length,
    status: 'importing',
    digest: createHash('sha256').update(JSON.stringify(parsed.entries)).digest('hex'),
    sample: options.sample,
    imported_at: now.toISOString(),
  };
  const existing = await getOne(keys.catalogueRelease(id));
  if (existing?.status === 'complete') {
    // Projects and warm caches rely on a complete release never changing.
    if (existing.digest === release.digest) return toRelease(existing);
    throw new CatalogueError(`release ${parsed.version} is already imported with other content; a published release never changes`);
  }
  const put = (r: Release) => putItem({ ...keys.catalogueRelease(id), entity: 'catalogue-release', ...r });
  await put(release);
  await putAll(
    parsed.entries.map((e) => ({ ...keys.catalogueEntry(id, e.position), entity: 'catalogue-entry', ...e })),
    8,
  );
  const complete: Release = { ...release, status: 'complete' };
  await put(complete);
  forgetRelease(id);
  return complete;
}

/** Complete releases, oldest import first. */
export async function listReleases(): Promise<Release[]> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
    ExpressionAttributeValues: { ':pk': keys.catalogueRelease('').PK, ':sk': prefixes.catalogueRelease },
  });
  return items.map(toRelease).filter((r) => r.status === 'complete');
}
