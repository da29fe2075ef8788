import * as z from 'zod';
import { CLASSIFICATION_CODES } from '../domain/classifications.js';
import { type CatalogueEntry, MATURITY_LEVELS } from '../domain/oscal.js';
import { once } from '../domain/validation.js';
import { parseStored } from './entity.js';
import { keys, prefixes } from './keys.js';
import { queryAll, type Item } from './read.js';

/** A catalogue entry as stored under keys.catalogueEntry: written once by the release's import, never changed. */
export const entrySchema = once(
  () =>
    z.looseObject({
      id: z.string(),
      kind: z.enum(['control', 'principle']),
      label: z.string(),
      title: z.string(),
      statement: z.string(),
      position: z.number().int(),
      path: z.array(z.string()),
      classifications: z.array(z.enum(CLASSIFICATION_CODES)),
      essential_eight: z.array(z.enum(MATURITY_LEVELS)),
      revision: z.number().nullable(),
      updated: z.string().nullable(),
    }) satisfies z.ZodType<CatalogueEntry>,
);

export const toEntry = (item: Item): CatalogueEntry => parseStored(entrySchema(), item);

/** Every entry of a release, in catalogue order: one Query of the release's partition. */
export async function entriesOfRelease(releaseId: string): Promise<CatalogueEntry[]> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
    ExpressionAttributeValues: { ':pk': keys.catalogueEntry(releaseId, 0).PK, ':sk': prefixes.catalogueEntry },
  });
  return items.map(toEntry);
}

interface ReleaseCatalogue {
  entries: CatalogueEntry[];
  byId: ReadonlyMap<string, CatalogueEntry>;
}

const cache = new Map<string, Promise<ReleaseCatalogue>>();

/**
 * A complete release never changes, so a warm function keeps its entries for the next population,
 * recalculation, control read or document: an installation holds a few ISM releases, of about
 * 1,100 entries each.
 */
function cachedRelease(releaseId: string): Promise<ReleaseCatalogue> {
  let cached = cache.get(releaseId);
  if (!cached) {
    cached = entriesOfRelease(releaseId).then((entries) => ({ entries, byId: new Map(entries.map((e) => [e.id, e])) }));
    cached.catch(() => cache.delete(releaseId));
    cache.set(releaseId, cached);
  }
  return cached;
}

/** Drops what a read of the release kept before its import completed. */
export const forgetRelease = (releaseId: string) => cache.delete(releaseId);

/** Every entry of a complete release in catalogue order, kept by a warm function. */
export const releaseEntries = async (releaseId: string): Promise<CatalogueEntry[]> => (await cachedRelease(releaseId)).entries;

/** The entries of a complete release by catalogue id (ism-1691), kept by a warm function: what reads join a control's text from. */
export const releaseCatalogue = async (releaseId: string): Promise<ReadonlyMap<string, CatalogueEntry>> => (await cachedRelease(releaseId)).byId;
