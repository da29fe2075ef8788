import { createApiHandler } from '../../lib/http/pipeline.js';
import { operations } from '../../lib/operations/groups/setup-projects.js';

export const handler = createApiHandler(operations);
