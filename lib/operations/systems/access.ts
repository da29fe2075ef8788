import type { StoredSystem } from '../../domain/systems.js';
import { notFound } from '../../errors.js';
import { keys } from '../../store/keys.js';
import { toSystem } from '../../store/systems.js';
import type { OperationContext } from '../kernel/operation.js';

/**
 * What the systems and registers groups share about a system. It declares no operation, so that
 * a group function importing it bundles none of another group's operations.
 */

/** The system, when it belongs to the organisation in the path; 404 otherwise. */
export function systemOf(ctx: OperationContext, organisationId: string, systemId: string): StoredSystem {
  const item = ctx.prefetched(keys.system(organisationId, systemId));
  if (!item) throw notFound();
  return toSystem(item);
}
