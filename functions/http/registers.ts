import { createApiHandler } from '../../lib/http/pipeline.js';
import { operations } from '../../lib/operations/registers/index.js';

export const handler = createApiHandler(operations);
