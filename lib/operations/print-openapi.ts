import { buildOpenApi } from './kernel/openapi.js';
import { OPERATIONS } from './registry.js';

/** `npm run --silent openapi`: the OpenAPI document the API serves, on stdout. */
console.log(JSON.stringify(buildOpenApi(OPERATIONS), null, 2));
