import type { Integration, IResource, RestApi } from 'aws-cdk-lib/aws-apigateway';
import { OPENAPI_PATH } from '../lib/operations/kernel/router.js';
import { OPERATIONS, functionOf, type FunctionName } from '../lib/operations/registry.js';
import { API_PREFIX } from '../lib/domain/api-paths.js';
import { CONSOLE_PREFIX } from '../lib/console/http.js';
import type { ConsoleFunction } from '../lib/console/route.js';

/** The gateway path of a registry operation: the registry's paths are relative to /api/v1. */
export function gatewayPath(operationPath: string): string {
  return API_PREFIX + operationPath;
}

/**
 * Every route of the API, generated from the operation registry (DESIGN.md section 3): ANY on each
 * registry path goes to the one function that serves that path's operations (its group's, or
 * downloads), whose router answers HEAD as GET and any other method 405 with the path's Allow,
 * like the local runtime. One method per path rather than one per operation and HEAD keeps the
 * stack far below CloudFormation's 500 resources as the registry grows. A path whose operations
 * two functions served would get a method per operation instead, and ANY to the meta function.
 * Paths outside the registry's tree (the root and a root-level greedy proxy) go to the meta
 * function, which answers them 404 as problem+json, as it serves the OpenAPI document.
 */
export function addRegistryRoutes(api: RestApi, integrationOf: (fn: FunctionName) => Integration, meta: Integration): void {
  const byPath = new Map<string, (typeof OPERATIONS)[number][]>();
  for (const op of OPERATIONS) byPath.set(op.path, [...(byPath.get(op.path) ?? []), op]);
  for (const [path, operations] of byPath) {
    const resource: IResource = api.root.resourceForPath(gatewayPath(path));
    const functions = new Set(operations.map(functionOf));
    const [only] = functions;
    if (functions.size === 1 && only) {
      resource.addMethod('ANY', integrationOf(only));
      continue;
    }
    for (const op of operations) {
      resource.addMethod(op.method, integrationOf(functionOf(op)));
      if (op.method === 'GET') resource.addMethod('HEAD', integrationOf(functionOf(op)));
    }
    resource.addMethod('ANY', meta);
  }

  const openapi = api.root.resourceForPath(OPENAPI_PATH);
  openapi.addMethod('GET', meta);
  openapi.addMethod('HEAD', meta);
  openapi.addMethod('ANY', meta);

  api.root.addMethod('ANY', meta);
  api.root.addResource('{proxy+}').addMethod('ANY', meta);
}

/**
 * The console's routes, from its functions' route declarations: ANY on /console and everything
 * below it to the console function, and each passkey ceremony to the passkeys function. A ceremony
 * on a path the console also serves (POST /console/sign-in beside its page) takes its method alone,
 * the console keeping ANY there; a path that only ceremonies use goes to the passkeys function
 * whole, which answers its other methods 405 as the console would. API Gateway does not fall back
 * from a matched resource to a greedy sibling, so every resource a ceremony adds, and each one
 * between it and /console, carries its own greedy child to the console: the paths below it (a
 * passkey's removal below /console/passkeys) still reach the console's pages and its 404.
 */
export function addConsoleRoutes(
  api: RestApi,
  pages: { fn: ConsoleFunction; integration: Integration },
  ceremonies: { fn: ConsoleFunction; integration: Integration },
): void {
  const root = api.root.resourceForPath(CONSOLE_PREFIX);
  root.addMethod('ANY', pages.integration);
  root.addResource('{proxy+}').addMethod('ANY', pages.integration);
  const pagePaths = new Set(pages.fn.routes.map((route) => route.path));
  const byPath = new Map<string, Set<string>>();
  for (const { path, method } of ceremonies.fn.routes) byPath.set(path, (byPath.get(path) ?? new Set()).add(method));
  const added = new Set<string>();
  for (const path of byPath.keys()) {
    const segments = path.split('/').filter(Boolean);
    for (let i = 1; i <= segments.length; i++) added.add(`/${segments.slice(0, i).join('/')}`);
  }
  for (const path of added) {
    const resource = api.root.resourceForPath(CONSOLE_PREFIX + path);
    const methods = byPath.get(path);
    if (methods && !pagePaths.has(path)) resource.addMethod('ANY', ceremonies.integration);
    else {
      for (const method of methods ?? []) {
        resource.addMethod(method, ceremonies.integration);
        if (method === 'GET') resource.addMethod('HEAD', ceremonies.integration);
      }
      resource.addMethod('ANY', pages.integration);
    }
    resource.addResource('{proxy+}').addMethod('ANY', pages.integration);
  }
}
