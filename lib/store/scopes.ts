import * as z from 'zod';
import { ProviderSelection } from '../domain/projects.js';
import { once } from '../domain/validation.js';
import { parseFound } from './entity.js';
import type { Item } from './read.js';

/**
 * A project's saved scope (keys.projectScope): its data as the last save replaced it, the provider
 * releases it selects, who saved it and when, and its version. Absent until its first save. The
 * data is kept as saved: ScopeData validates what a save takes, not what earlier saves stored.
 */
const scopeSchema = once(() =>
  z.looseObject({
    data: z.record(z.string(), z.unknown()),
    provider_selections: z.array(ProviderSelection()),
    provider_selections_updated_at: z.string().optional(),
    provider_selections_updated_by: z.string().optional(),
    updated_at: z.string(),
    updated_by: z.string(),
    version: z.number().int(),
  }),
);
export type StoredScope = z.output<ReturnType<typeof scopeSchema>>;

export const asScope = (item: Item | undefined): StoredScope | undefined => parseFound(scopeSchema(), item);

/**
 * A project's engagement details (keys.projectEngagement): the fields it was given (a cleared
 * field is removed), who changed them last and when, and its version. Absent until its first change.
 */
const engagementSchema = once(() =>
  z.looseObject({
    data: z.record(z.string(), z.string()),
    updated_at: z.string(),
    updated_by: z.string(),
    version: z.number().int(),
  }),
);
export type StoredEngagement = z.output<ReturnType<typeof engagementSchema>>;

export const asEngagement = (item: Item | undefined): StoredEngagement | undefined => parseFound(engagementSchema(), item);
