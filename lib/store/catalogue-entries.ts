import * as z from 'zod';
import { CLASSIFICATION_CODES } from '../domain/classifications.js';
import { type CatalogueEntry, MATURITY_LEVELS } from '../domain/oscal.js';
import { parseStored } from './entity.js';
import { keys, prefixes } from './keys.js';
import { queryAll, type Item } from './read.js';

/** A catalogue entry as stored under keys.catalogueEntry: written once by the release's import, never changed. */
export const entrySchema = z.looseObject({
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
}) satisfies z.ZodType<CatalogueEntry>;

export const toEntry = (item: Item): CatalogueEntry => parseStored(entrySchema, item);

/** Every entry of a release, in catalogue order: one Query of the release's partition. */
export async function entriesOfRelease(releaseId: string): Promise<CatalogueEntry[]> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
    ExpressionAttributeValues: { ':pk': keys.catalogueEntry(releaseId, 0).PK, ':sk': prefixes.catalogueEntry },
  });
  return items.map(toEntry);
}
