import { createApiHandler } from '../../lib/http/pipeline.js';
import { operations } from '../../lib/operations/controls/index.js';

export const handler = createApiHandler(operations);
