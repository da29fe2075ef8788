import { createApiHandler } from '../../lib/http/pipeline.js';
import { operations } from '../../lib/operations/setup-projects/index.js';

export const handler = createApiHandler(operations);
