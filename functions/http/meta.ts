import { createMetaHandler } from '../../lib/http/meta.js';
import type { ApiDescription } from '../../lib/operations/kernel/router.js';

/** Generated from the operation registry when the function is bundled (esbuild inject, infra/injected-modules.ts). */
declare const API_DESCRIPTION: ApiDescription;

export const handler = createMetaHandler(API_DESCRIPTION);
