import * as z from 'zod';
import type { ContextData } from '../domain/context.js';
import { once } from '../domain/validation.js';
import { parseFound } from './entity.js';
import type { Item } from './read.js';

/**
 * An organisation's or a system's context as stored (keys.organisationContext, systemContext):
 * the value of each field it was given, by field id, the version of the definition it was written
 * with, who changed it last and its version. Absent until its first change.
 */
const contextSchema = once(() =>
  z.looseObject({
    data: z.record(z.string(), z.string().nullable()) satisfies z.ZodType<ContextData>,
    definition_version: z.string(),
    updated_at: z.string(),
    updated_by: z.string(),
    version: z.number().int(),
  }),
);
export type StoredContext = z.output<ReturnType<typeof contextSchema>>;

export const asContext = (item: Item | undefined): StoredContext | undefined => parseFound(contextSchema(), item);
