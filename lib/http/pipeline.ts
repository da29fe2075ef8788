import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { AnyOperation } from '../operations/operation.js';
import { createRouter } from '../operations/router.js';
import { authenticate } from './middlewares/authenticate.js';
import { authorize } from './middlewares/authorize.js';
import { errorMapper } from './middlewares/error-mapper.js';
import { load } from './middlewares/load.js';
import { callerBudgets, ingressLimit } from './middlewares/rate-limit.js';
import { preconditions } from './middlewares/preconditions.js';
import { receipt } from './middlewares/receipt.js';
import { responseHeaders } from './middlewares/response-headers.js';
import { route } from './middlewares/route.js';
import { validate } from './middlewares/validate.js';
import { execute } from './execute.js';
import type { Middleware, PipelineRequest } from './state.js';

export type ApiHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** The steps of DESIGN.md section 4, in order. */
export function pipelineSteps(operations: readonly AnyOperation[]): Middleware[] {
  return [
    responseHeaders(),
    errorMapper(),
    route(createRouter(operations)),
    load(),
    ingressLimit(),
    authenticate(),
    authorize(),
    callerBudgets(),
    validate(),
    preconditions(),
    receipt(),
  ];
}

/** A group function: the shared pipeline in front of that group's operations. */
export function createApiHandler(operations: readonly AnyOperation[]): ApiHandler {
  // middy hands the handler the event, not the request; the steps' state is found through it.
  const requests = new WeakMap<APIGatewayProxyEvent, PipelineRequest>();
  const remember: Middleware = { before: (request) => void requests.set(request.event, request) };
  const handler = middy<APIGatewayProxyEvent, APIGatewayProxyResult>();
  for (const step of [remember, ...pipelineSteps(operations)]) handler.use(step as never);
  handler.handler(async (event) => execute(requests.get(event)!));
  return handler as unknown as ApiHandler;
}
