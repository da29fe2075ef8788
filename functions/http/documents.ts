import { createApiHandler } from '../../lib/http/pipeline.js';
import { operations } from '../../lib/operations/groups/documents.js';

export const handler = createApiHandler(operations);
