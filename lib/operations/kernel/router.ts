import type * as z from 'zod';
import { API_PREFIX, apiUrl } from '../../domain/api-paths.js';
import type { AnyOperation } from './operation.js';

/** The URL of an operation's resource: its path with the parameters filled in (Location headers, links). */
export const urlOf = <P extends z.ZodType>(op: { path: string; params: P }, params: z.output<P>): string =>
  apiUrl(op.path, params as Readonly<Record<string, string>>);

/** The route of an operation as logs and audit records name it: its path template under the prefix. */
export const routeOf = (op: Pick<AnyOperation, 'path'>): string => `${API_PREFIX}${op.path}`;

/** What a route needs of an operation: the meta function matches bare method and path pairs. */
export interface Routable {
  method: string;
  path: string;
}

/** Served by the meta function, beside the registry's paths. */
export const OPENAPI_PATH = `${API_PREFIX}/openapi.json`;
export const OPENAPI_OPERATION_ID = 'getOpenApiDocument';

/**
 * What the meta function knows of the operations: the OpenAPI document, serialised, and every
 * method and path. The bundle gets it at build time (infra/bundling.ts), so that the function
 * carries no operation code; the local runtime derives it from the registry at start.
 */
export interface ApiDescription {
  document: string;
  routes: readonly Routable[];
}

export type RouteMatch<T extends Routable = AnyOperation> =
  | { kind: 'found'; operation: T; params: Record<string, string> }
  | { kind: 'wrong-method'; allow: string[] }
  | { kind: 'unknown' };

export interface Router<T extends Routable = AnyOperation> {
  match(method: string, fullPath: string): RouteMatch<T>;
}

interface Route<T> {
  pattern: RegExp;
  names: string[];
  byMethod: Map<string, T>;
}

/** HEAD is GET without the body (RFC 9110 9.3.2): every GET resource takes it. */
function allowed<T>(route: Route<T>): string[] {
  const methods = [...route.byMethod.keys()];
  if (route.byMethod.has('GET')) methods.push('HEAD');
  return methods.sort();
}

/** Matches request paths against the registry's templates; built once per function instance. */
export function createRouter<T extends Routable = AnyOperation>(operations: readonly T[]): Router<T> {
  const routes = new Map<string, Route<T>>();
  for (const op of operations) {
    let route = routes.get(op.path);
    if (!route) {
      const names: string[] = [];
      const source = op.path
        .split('/')
        .map((seg) => {
          const m = /^\{(\w+)\}$/.exec(seg);
          if (!m) return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          names.push(m[1]!);
          return '([^/]+)';
        })
        .join('/');
      route = { pattern: new RegExp(`^${source}$`), names, byMethod: new Map() };
      routes.set(op.path, route);
    }
    if (route.byMethod.has(op.method)) throw new Error(`two operations declare ${op.method} ${op.path}`);
    route.byMethod.set(op.method, op);
  }
  // Literal segments win over parameters (/external-providers/options before /{provider}).
  const ordered = [...routes.values()].sort((a, b) => a.names.length - b.names.length);

  return {
    match(method: string, fullPath: string): RouteMatch<T> {
      if (!fullPath.startsWith(`${API_PREFIX}/`)) return { kind: 'unknown' };
      const path = fullPath.slice(API_PREFIX.length);
      for (const route of ordered) {
        const m = route.pattern.exec(path);
        if (!m) continue;
        const operation = route.byMethod.get(method.toUpperCase()) ?? (method.toUpperCase() === 'HEAD' ? route.byMethod.get('GET') : undefined);
        if (!operation) return { kind: 'wrong-method', allow: allowed(route) };
        const params: Record<string, string> = {};
        try {
          route.names.forEach((name, i) => {
            params[name] = decodeURIComponent(m[i + 1]!);
          });
        } catch {
          return { kind: 'unknown' };
        }
        return { kind: 'found', operation, params };
      }
      return { kind: 'unknown' };
    },
  };
}
