import * as z from 'zod';
import { parseStored } from './entity.js';
import type { Item } from './read.js';
import { once } from '../domain/validation.js';

/** A catalogue release as stored under keys.catalogueRelease: listed once complete, never changed after. */
export const releaseSchema = once(() =>
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

export type Release = z.infer<ReturnType<typeof releaseSchema>>;

export const toRelease = (item: Item): Release => parseStored(releaseSchema(), item);
