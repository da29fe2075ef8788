import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { attributeTo, runAsFunction } from '../command-recording.js';
import type { AnyOperation } from '../operations/kernel/operation.js';
import { functionOf } from '../operations/kernel/function-of.js';
import { createRouter } from '../operations/kernel/router.js';
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
import type { ApiHandler } from './event.js';
import { execute } from './execute.js';
import { matched, type Middleware, type PipelineRequest } from './state.js';

/** The steps of DESIGN.md section 4, in order. */
export function pipelineSteps(operations: readonly AnyOperation[]): Middleware[] {
  return [
    responseHeaders(),
    errorMapper(),
    route(createRouter(operations)),
    // What the request issues from here on is its operation's function's, as the CDK routes it.
    { before: (request) => attributeTo(`http/${functionOf(matched(request))}`) },
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
  handler.handler(async (event) => {
    const request = requests.get(event);
    if (!request) throw new Error('the pipeline did not see this event');
    return execute(request);
  });
  // Until routing names the function, nothing should be issued: what is, is recorded as unrouted.
  return (event, context) => runAsFunction('http/unrouted', () => handler(event, context));
}
