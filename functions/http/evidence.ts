import { createApiHandler } from '../../lib/http/pipeline.js';
import { operations } from '../../lib/operations/groups/evidence.js';

export const handler = createApiHandler(operations);
