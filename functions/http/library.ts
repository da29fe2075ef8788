import { createApiHandler } from '../../lib/http/pipeline.js';
import { operations } from '../../lib/operations/library/index.js';

export const handler = createApiHandler(operations);
