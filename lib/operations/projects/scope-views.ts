import type * as z from 'zod';
import type { Scope } from '../../domain/projects.js';
import { keys } from '../../store/keys.js';
import { asEngagement, asScope, type StoredScope } from '../../store/scopes.js';
import type { OperationContext } from '../kernel/operation.js';

/**
 * The scope and engagement views that the setup-projects and projects functions share. It
 * declares no operation, so that neither function bundles the other's.
 */

type ScopeView = z.infer<ReturnType<typeof Scope>>;

/** The saved scope as read (prefetched with the project), and its version for the scope ETag: 0 before its first save. */
export function scopeOf(ctx: OperationContext, projectId: string): { scope: StoredScope | undefined; version: number } {
  const scope = asScope(ctx.prefetched(keys.projectScope(projectId)));
  return { scope, version: scope?.version ?? 0 };
}

type Shown = Pick<StoredScope, 'data' | 'provider_selections' | 'updated_at' | 'provider_selections_updated_at' | 'provider_selections_updated_by'>;

export function scopeView(scope: Shown | undefined, full: boolean): ScopeView {
  const base = {
    data: scope?.data ?? {},
    provider_selections: scope?.provider_selections ?? [],
    updated_at: scope?.updated_at ?? null,
  };
  if (!full) return base;
  return {
    ...base,
    provider_selections_updated_at: scope?.provider_selections_updated_at ?? null,
    provider_selections_updated_by: scope?.provider_selections_updated_by ?? null,
  };
}

export const engagementOf = (ctx: OperationContext, projectId: string) => {
  const engagement = asEngagement(ctx.prefetched(keys.projectEngagement(projectId)));
  return { version: engagement?.version ?? 0, data: engagement?.data, updatedAt: engagement?.updated_at ?? null };
};
