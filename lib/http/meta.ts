import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { buildOpenApi } from '../operations/openapi.js';
import type { AnyOperation } from '../operations/operation.js';
import { API_PREFIX, createRouter } from '../operations/router.js';
import { methodNotAllowed, notFound } from './errors.js';
import { errorMapper } from './middlewares/error-mapper.js';
import { responseHeaders } from './middlewares/response-headers.js';
import type { ApiHandler } from './pipeline.js';

export const OPENAPI_PATH = `${API_PREFIX}/openapi.json`;

/**
 * The function behind the OpenAPI document and every path or method no group serves, so that
 * those answers are problem+json with a request id too.
 */
export function createMetaHandler(operations: readonly AnyOperation[]): ApiHandler {
  const router = createRouter(operations);
  let document: string | undefined;
  const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult>();
  handler.use(responseHeaders() as never);
  handler.use(errorMapper() as never);
  handler.handler(async (event) => {
    if (event.path === OPENAPI_PATH) {
      if (event.httpMethod !== 'GET') throw methodNotAllowed(['GET']);
      document ??= JSON.stringify(buildOpenApi(operations));
      return { statusCode: 200, headers: { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=300' }, body: document };
    }
    const m = router.match(event.httpMethod, event.path);
    if (m.kind === 'wrong-method') throw methodNotAllowed(m.allow);
    throw notFound('No operation exists at this path.');
  });
  return handler as unknown as ApiHandler;
}
