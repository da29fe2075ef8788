import { createApiHandler } from '../../lib/http/pipeline.js';
import { operations } from '../../lib/operations/groups/providers.js';

export const handler = createApiHandler(operations);
