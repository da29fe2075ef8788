import { dependenciesOf, isPermission, permissionsOf, type CredentialType, type Permission } from '../domain/permissions.js';

/**
 * Seed, Authentication part 3: a permission counts only when the credential selected it, the actor
 * holds it live, it belongs to the credential's type, and the same holds for each dependency.
 */
export function effectivePermissions(type: CredentialType, selected: readonly string[], live: readonly string[]): Set<Permission> {
  const inType = new Set(permissionsOf(type));
  const held = (p: Permission) => inType.has(p) && selected.includes(p) && live.includes(p);
  const out = new Set<Permission>();
  for (const name of selected) {
    if (!isPermission(name) || !held(name)) continue;
    if (dependenciesOf(type, name).every(held)) out.add(name);
  }
  return out;
}

/** Any one alternative, held in full. An empty list of alternatives means no permission is needed. */
export function satisfies(alternatives: Permission[][] | undefined, effective: ReadonlySet<Permission>): boolean {
  if (!alternatives) return false;
  if (alternatives.length === 0) return true;
  return alternatives.some((set) => set.every((p) => effective.has(p)));
}
