import { createApiHandler } from '../../lib/http/pipeline.js';
import { operations } from '../../lib/operations/projects/index.js';

export const handler = createApiHandler(operations);
