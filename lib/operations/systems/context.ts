import { SYSTEM_CONTEXT } from '../../domain/context.js';
import { keys } from '../../store/keys.js';
import { SystemParams } from '../kernel/common.js';
import { contextOperations, requestRecalculation } from '../kernel/contexts.js';

export const [getSystemContext, updateSystemContext] = contextOperations({
  name: 'System',
  group: 'systems',
  path: '/organisations/{organisation}/systems/{system}/context',
  params: SystemParams,
  definition: SYSTEM_CONTEXT,
  ownerKey: (p) => keys.system(p.organisation, p.system),
  contextKey: (p) => keys.systemContext(p.system),
  onApplicabilityChange: (p, ctx) => requestRecalculation({ system_id: p.system }, p.organisation, ctx),
});

export const systemContextOperations = [getSystemContext, updateSystemContext];
