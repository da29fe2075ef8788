import * as z from 'zod';
import { once } from '../domain/validation.js';
import { parseFound } from './entity.js';
import type { Item } from './read.js';

/**
 * An item that shows an uploaded file to clients (an organisation's logo, a project's network
 * diagram), as ownerShows (lib/files/accept.ts) writes it and the scan pipeline mirrors its upload
 * into it: its status, and the detected type, dimensions and released key once the scan set them.
 */
const fileOwnerSchema = once(() =>
  z.looseObject({
    upload_id: z.string(),
    file_status: z.enum(['quarantine', 'ready', 'error']),
    error_code: z.string().nullable(),
    file_name: z.string(),
    size: z.number(),
    detected_type: z.string().nullable(),
    width: z.number().nullable(),
    height: z.number().nullable(),
    s3_key: z.string(),
    uploaded_at: z.string(),
    uploaded_by: z.string(),
    version: z.number(),
  }),
);
export type FileOwner = z.output<ReturnType<typeof fileOwnerSchema>>;

export const asFileOwner = (item: Item | undefined): FileOwner | undefined => parseFound(fileOwnerSchema(), item);

/**
 * Any item that shows an upload's status, as the scan pipeline reads it before mirroring the
 * upload into it: an owner (a logo, a diagram, an evidence upload, a provider artefact) or a
 * mirror (an evidence file link). An item that no longer shows an upload has none of these; one
 * listed in a collection names the item whose revision its parent shows (`revision_key`).
 */
const uploadShownSchema = once(() =>
  z.looseObject({
    upload_id: z.string().optional(),
    file_status: z.enum(['quarantine', 'ready', 'error']).nullable().optional(),
    error_code: z.string().nullable().optional(),
    revision_key: z.looseObject({ PK: z.string(), SK: z.string() }).optional(),
  }),
);
export type UploadShown = z.output<ReturnType<typeof uploadShownSchema>>;

export const asUploadShown = (item: Item | undefined): UploadShown | undefined => parseFound(uploadShownSchema(), item);
