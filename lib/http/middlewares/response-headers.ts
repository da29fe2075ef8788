import { newUlid } from '../../domain/ids.js';
import { logger } from '../../log.js';
import { sourceIp } from '../event.js';
import type { Middleware, PipelineRequest } from '../state.js';
import { takeStream } from '../streaming.js';

/**
 * Step 1: the request id, assigned before authentication so that every response and audit event
 * can be correlated (seed, Events part 2), and the headers every response carries.
 */
export function responseHeaders(): Middleware {
  const finish = (request: PipelineRequest) => {
    const response = request.response;
    if (!response) return;
    response.headers = {
      ...response.headers,
      ...request.state.responseHeaders,
      'X-Request-ID': request.state.requestId,
      'X-Content-Type-Options': 'nosniff',
    };
    // HEAD answers what GET would, without the body (RFC 9110 9.3.2); API Gateway passes HEAD through.
    if (request.event.httpMethod.toUpperCase() === 'HEAD') {
      // A streamed file names its length already; its body is never read.
      const stream = takeStream(response);
      stream?.destroy();
      const length = stream ? response.headers['Content-Length'] : Buffer.byteLength(response.body ?? '', response.isBase64Encoded ? 'base64' : 'utf8');
      response.headers['Content-Length'] = String(length);
      response.body = '';
      response.isBase64Encoded = false;
    }
    // One structured line per request: identifiers and outcome only, never values.
    logger.info('request', {
      request_id: request.state.requestId,
      operation_id: request.state.operation?.id ?? request.state.unregisteredOperationId ?? 'unmatched',
      method: request.event.httpMethod,
      status: response.statusCode,
      duration_ms: Date.now() - request.state.startedAt.getTime(),
    });
  };
  return {
    before: (request) => {
      request.state = {
        requestId: newUlid(),
        startedAt: new Date(),
        ip: sourceIp(request.event),
        page: { number: 1, size: 50 },
        responseHeaders: {},
      };
    },
    after: finish,
    onError: finish,
  };
}
