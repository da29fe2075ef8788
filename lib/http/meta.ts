import middy from '@middy/core';
import { runAsFunction } from '../command-recording.js';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { createRouter, OPENAPI_OPERATION_ID, OPENAPI_PATH, type ApiDescription } from '../operations/kernel/router.js';
import { methodNotAllowed, notFound } from '../errors.js';
import { errorMapper } from './middlewares/error-mapper.js';
import { responseHeaders } from './middlewares/response-headers.js';
import type { ApiHandler } from './event.js';
import type { Middleware } from './state.js';

/** Runs only when the handler answered, which on this function is the document alone. */
const namesTheDocument: Middleware = {
  after: (request) => {
    request.state.unregisteredOperationId = OPENAPI_OPERATION_ID;
  },
};

/**
 * The function behind the OpenAPI document and every path or method no group serves, so that
 * those answers are problem+json with a request id too.
 */
export function createMetaHandler(api: ApiDescription): ApiHandler {
  const router = createRouter(api.routes);
  const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult>();
  handler.use(responseHeaders() as never);
  handler.use(errorMapper() as never);
  handler.use(namesTheDocument as never);
  handler.handler(async (event) => {
    if (event.path === OPENAPI_PATH) {
      if (event.httpMethod !== 'GET' && event.httpMethod !== 'HEAD') throw methodNotAllowed(['GET', 'HEAD']);
      return { statusCode: 200, headers: { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=300' }, body: api.document };
    }
    const m = router.match(event.httpMethod, event.path);
    if (m.kind === 'wrong-method') throw methodNotAllowed(m.allow);
    throw notFound('No operation exists at this path.');
  });
  // Its failed-request audit writes are recorded, so that its role is granted them (infra/grants.ts).
  return (event, context) => runAsFunction('http/meta', () => handler(event, context));
}
