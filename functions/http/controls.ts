import { createApiHandler } from '../../lib/http/pipeline.js';
import { operationsServedBy } from '../../lib/operations/registry.js';

export const handler = createApiHandler(operationsServedBy('controls'));
