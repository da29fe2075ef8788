import * as z from 'zod';

import { Ulid } from '../domain/ids.js';

export { Ulid };

export const Timestamp = z.iso.datetime({ offset: true });

/** page[number] and page[size], seed's Limits part. */
export const PageQuery = z.strictObject({
  'page[number]': z.coerce.number().int().min(1).default(1).meta({ description: 'Page number, from 1.' }),
  'page[size]': z.coerce.number().int().min(1).max(100).default(50).meta({ description: 'Items per page, 1 to 100.' }),
});

export const NoQuery = z.strictObject({});
export const NoParams = z.strictObject({});

export const PaginatedMeta = z.object({
  request_id: z.string(),
  total: z.number().int().min(0),
  current_page: z.number().int().min(1),
  page_size: z.number().int().min(1),
});

export const Meta = z.object({ request_id: z.string() });

export const OrganisationParams = z.strictObject({ organisation: Ulid });
export const SystemParams = z.strictObject({ organisation: Ulid, system: Ulid });
