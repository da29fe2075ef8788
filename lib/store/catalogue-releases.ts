import * as z from 'zod';
import { once } from '../domain/validation.js';
import { itemAbsent } from './conditions.js';
import { parseFound, parseStored } from './entity.js';
import { keys } from './keys.js';
import { getOne, type Item } from './read.js';
import { putItem } from './update.js';

/** A catalogue release as stored under keys.catalogueRelease: listed once complete, never changed after. */
const releaseSchema = once(() =>
  z.looseObject({
    id: z.string(),
    version: z.string(),
    title: z.string(),
    published: z.string().nullable(),
    entries: z.number().int(),
    controls: z.number().int(),
    principles: z.number().int(),
    status: z.enum(['importing', 'complete']),
    /** SHA-256 of the parsed entries: a second import of the version must bring the same content. */
    digest: z.string(),
    sample: z.boolean(),
    imported_at: z.string(),
  }),
);

export type Release = z.output<ReturnType<typeof releaseSchema>>;

export const toRelease = (item: Item): Release => parseStored(releaseSchema(), item);

/** A release by its id, strongly consistent; undefined when there is none. */
export const getRelease = async (releaseId: string): Promise<Release | undefined> =>
  parseFound(releaseSchema(), await getOne(keys.catalogueRelease(releaseId)));

/** A version's claim on the release id it was first imported as (keys.catalogueVersion). */
const versionClaimSchema = once(() => z.looseObject({ version: z.string(), release_id: z.string() }));

/** The release id a version was first imported as; undefined when it never was. */
export const claimedReleaseId = async (version: string): Promise<string | undefined> =>
  parseFound(versionClaimSchema(), await getOne(keys.catalogueVersion(version)))?.release_id;

/** Claims the release id for a version; false when another import claimed one first. */
export const claimVersion = (version: string, releaseId: string): Promise<boolean> =>
  putItem({ ...keys.catalogueVersion(version), entity: 'catalogue-version', version, release_id: releaseId }, itemAbsent());
