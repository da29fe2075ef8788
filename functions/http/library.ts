import { createApiHandler } from '../../lib/http/pipeline.js';
import { operations } from '../../lib/operations/groups/library.js';

export const handler = createApiHandler(operations);
