import { createMetaHandler } from '../../lib/http/meta.js';
import { OPERATIONS } from '../../lib/operations/registry.js';

export const handler = createMetaHandler(OPERATIONS);
