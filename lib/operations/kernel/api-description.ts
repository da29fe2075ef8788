import { buildOpenApi } from './openapi.js';
import type { AnyOperation } from './operation.js';
import type { ApiDescription } from './router.js';

/** What the meta function serves, derived from the operations: computed at bundle time, or once at local start. */
export function describeApi(operations: readonly AnyOperation[]): ApiDescription {
  return {
    document: JSON.stringify(buildOpenApi(operations)),
    routes: operations.map(({ method, path }) => ({ method, path })),
  };
}
