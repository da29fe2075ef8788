import { createApiHandler } from '../../lib/http/pipeline.js';
import { operationsOf } from '../../lib/operations/registry.js';

export const handler = createApiHandler(operationsOf('projects'));
