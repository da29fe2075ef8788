import type * as z from 'zod';
import type { ProviderSelection, Scope } from '../../domain/projects.js';
import { keys } from '../../store/keys.js';
import type { Item } from '../../store/read.js';
import { storedVersion } from '../../store/versioned.js';
import type { OperationContext } from '../kernel/operation.js';

/**
 * The scope and engagement views that the setup-projects and projects functions share. It
 * declares no operation, so that neither function bundles the other's.
 */

type ScopeView = z.infer<ReturnType<typeof Scope>>;

export function scopeView(item: Item | undefined, full: boolean): ScopeView {
  const base = {
    data: (item?.data as Record<string, unknown> | undefined) ?? {},
    provider_selections: (item?.provider_selections as ProviderSelection[] | undefined) ?? [],
    updated_at: (item?.updated_at as string | undefined) ?? null,
  };
  if (!full) return base;
  return {
    ...base,
    provider_selections_updated_at: (item?.provider_selections_updated_at as string | undefined) ?? null,
    provider_selections_updated_by: (item?.provider_selections_updated_by as string | undefined) ?? null,
  };
}

export const engagementOf = (ctx: OperationContext, projectId: string) => {
  const item = ctx.prefetched(keys.projectEngagement(projectId));
  return {
    item,
    version: storedVersion(item),
    data: item?.data as Record<string, unknown> | undefined,
    updatedAt: (item?.updated_at as string | undefined) ?? null,
  };
};
