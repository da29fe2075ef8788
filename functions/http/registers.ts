import { createApiHandler } from '../../lib/http/pipeline.js';
import { operations } from '../../lib/operations/groups/registers.js';

export const handler = createApiHandler(operations);
