import * as z from 'zod';

import { Ulid } from '../../domain/ids.js';
import { once, singleLine } from '../../domain/validation.js';

export { Ulid };

export const Timestamp = once(() => z.iso.datetime({ offset: true }));

/**
 * A numeric query parameter: decimal digits only, since Number() also reads 1e2, 0x10, +5, ' 5'
 * and 5.0. OpenAPI describes it as the integer it is rather than as the string it arrives as.
 */
const wholeNumberQuery = (range: { min: number; max: number }) =>
  singleLine()
    .regex(/^[0-9]+$/, 'must be a whole number written in decimal digits')
    .transform(Number)
    .pipe(z.number().int().min(range.min).max(range.max))
    .meta({ type: 'integer', minimum: range.min, maximum: range.max });

/**
 * page[number] and page[size], seed's Limits part. The contract bounds only page[size]; a page
 * number goes up to the largest integer the server counts exactly, and a page past the end is empty.
 */
export const PageQuery = once(() =>
  z.strictObject({
    'page[number]': wholeNumberQuery({ min: 1, max: Number.MAX_SAFE_INTEGER }).default(1).meta({ description: 'Page number, from 1; 1 when omitted.' }),
    'page[size]': wholeNumberQuery({ min: 1, max: 100 }).default(50).meta({ description: 'Items per page, 1 to 100; 50 when omitted.' }),
  }),
);

export const NoQuery = once(() => z.strictObject({}));
export const NoParams = once(() => z.strictObject({}));

export const PaginatedMeta = once(() =>
  z.object({
    request_id: z.string(),
    total: z.number().int().min(0),
    current_page: z.number().int().min(1),
    page_size: z.number().int().min(1),
  }),
);

export const Meta = once(() => z.object({ request_id: z.string() }));

export const OrganisationParams = once(() => z.strictObject({ organisation: Ulid }));
export const SystemParams = once(() => z.strictObject({ organisation: Ulid, system: Ulid }));
