import type { Integration, IResource, RestApi } from 'aws-cdk-lib/aws-apigateway';
import { OPENAPI_PATH } from '../lib/operations/router.js';
import { OPERATIONS, functionOf, type FunctionName } from '../lib/operations/registry.js';
import { API_PREFIX } from '../lib/operations/router.js';

/** The gateway path of a registry operation: the registry's paths are relative to /api/v1. */
export function gatewayPath(operationPath: string): string {
  return API_PREFIX + operationPath;
}

/**
 * Every route of the API, generated from the operation registry (DESIGN.md section 3): each
 * operation's method on its path goes to the function that serves it (its group's, or downloads),
 * and so does HEAD on a GET operation's path. Everything else goes to the meta
 * function, so that unknown paths and wrong methods are answered as problem+json 404 and 405 by
 * the same code that answers them locally:
 * - ANY on every registry path (API Gateway prefers an explicit method over ANY);
 * - ANY on the root and on a root-level greedy proxy for paths outside the registry's tree.
 */
export function addRegistryRoutes(api: RestApi, integrationOf: (fn: FunctionName) => Integration, meta: Integration): void {
  const registryResources = new Map<string, IResource>();
  for (const op of OPERATIONS) {
    const path = gatewayPath(op.path);
    const resource = registryResources.get(path) ?? api.root.resourceForPath(path);
    registryResources.set(path, resource);
    resource.addMethod(op.method, integrationOf(functionOf(op)));
    // HEAD is GET without the body (RFC 9110 9.3.2): the same function answers it.
    if (op.method === 'GET') resource.addMethod('HEAD', integrationOf(functionOf(op)));
  }
  for (const resource of registryResources.values()) resource.addMethod('ANY', meta);

  const openapi = api.root.resourceForPath(OPENAPI_PATH);
  openapi.addMethod('GET', meta);
  openapi.addMethod('HEAD', meta);
  openapi.addMethod('ANY', meta);

  api.root.addMethod('ANY', meta);
  api.root.addResource('{proxy+}').addMethod('ANY', meta);
}
