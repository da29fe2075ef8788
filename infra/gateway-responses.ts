import { ResponseType, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import { PROBLEM_TYPE_BASE } from '../lib/http/problem.js';

interface GatewayProblem {
  type: ResponseType;
  /** Absent on the DEFAULT_* types: they cover several statuses and VTL cannot read which one. */
  status?: number;
  code: string;
  title: string;
  detail: string;
  retryAfter?: number;
}

/**
 * Answers the gateway gives before a function runs, in the same problem+json shape as the
 * functions' (seed, Errors part 1). `status` is advisory in RFC 9457 section 3.1.2, so the DEFAULT
 * bodies leave it out rather than state a wrong one.
 */
export function problemGatewayResponses(wafRetryAfterSeconds: number): GatewayProblem[] {
  return [
    {
      type: ResponseType.DEFAULT_4XX,
      code: 'request_rejected',
      title: 'Request Rejected',
      detail: 'The gateway rejected the request before it reached the API.',
    },
    {
      type: ResponseType.DEFAULT_5XX,
      code: 'gateway_error',
      title: 'Gateway Error',
      detail: 'The request could not be completed. Quote the request id when reporting this.',
    },
    // Backstop for paths below a declared resource, where the root greedy proxy is not consulted.
    { type: ResponseType.MISSING_AUTHENTICATION_TOKEN, status: 404, code: 'not_found', title: 'Not Found', detail: 'No operation exists at this path.' },
    // The only WAF rule is the coarse per-IP rate rule, so a WAF block is a rate limit.
    {
      type: ResponseType.WAF_FILTERED,
      status: 429,
      code: 'rate_limited',
      title: 'Too Many Requests',
      detail: 'Too many requests from this address; retry after the Retry-After delay.',
      retryAfter: wafRetryAfterSeconds,
    },
    {
      type: ResponseType.THROTTLED,
      status: 429,
      code: 'rate_limited',
      title: 'Too Many Requests',
      detail: 'The API is throttling requests; retry after the Retry-After delay.',
      retryAfter: 1,
    },
    // Only a usage plan has a quota, and its period (a day, a week, a month) is no Retry-After.
    { type: ResponseType.QUOTA_EXCEEDED, status: 429, code: 'quota_exceeded', title: 'Too Many Requests', detail: 'The usage quota of this period is spent.' },
    // The local front door (lib/local/problems.ts) answers a larger body with the same problem.
    {
      type: ResponseType.REQUEST_TOO_LARGE,
      status: 413,
      code: 'payload_too_large',
      title: 'Content Too Large',
      detail: 'The request exceeds the 10 MB gateway limit; send large files through an upload session.',
    },
    {
      type: ResponseType.INTEGRATION_TIMEOUT,
      status: 504,
      code: 'gateway_timeout',
      title: 'Gateway Timeout',
      detail: 'The request took too long to complete. Quote the request id when reporting this.',
    },
    // AWS answers 504 by default, but a failed integration is no timeout (seed, Errors part 2).
    {
      type: ResponseType.INTEGRATION_FAILURE,
      status: 502,
      code: 'gateway_error',
      title: 'Bad Gateway',
      detail: 'The request could not be completed. Quote the request id when reporting this.',
    },
  ];
}

export function addProblemGatewayResponses(api: RestApi, wafRetryAfterSeconds: number): void {
  for (const problem of problemGatewayResponses(wafRetryAfterSeconds)) {
    // $context.requestId is a UUID the gateway generates: safe inside a JSON string, unlike the
    // path the client chose, so the occurrence is named by the request id.
    const body = [
      `"type":"${PROBLEM_TYPE_BASE}${problem.code.replace(/_/g, '-')}"`,
      `"title":"${problem.title}"`,
      ...(problem.status === undefined ? [] : [`"status":${problem.status}`]),
      `"detail":"${problem.detail}"`,
      `"code":"${problem.code}"`,
      '"instance":"urn:uuid:$context.requestId"',
      '"request_id":"$context.requestId"',
    ].join(',');
    api.addGatewayResponse(`Problem${problem.type.responseType}`, {
      type: problem.type,
      ...(problem.status === undefined ? {} : { statusCode: String(problem.status) }),
      responseHeaders: {
        'Content-Type': "'application/problem+json'",
        'Cache-Control': "'no-store'",
        'X-Request-ID': 'context.requestId',
        ...(problem.retryAfter === undefined ? {} : { 'Retry-After': `'${problem.retryAfter}'` }),
      },
      templates: { 'application/json': `{${body}}` },
    });
  }
}
