import type { APIGatewayProxyResult } from 'aws-lambda';
import { ApiError } from '../errors.js';

export const PROBLEM_TYPE_BASE = 'https://assessment-operations.example/problems/';

/** RFC 9457 body; `type` names the code so that clients can look it up. */
export function problemResponse(error: ApiError, requestId: string, instance: string): APIGatewayProxyResult {
  const body: Record<string, unknown> = {
    type: PROBLEM_TYPE_BASE + error.code.replace(/_/g, '-'),
    title: error.title,
    status: error.status,
    detail: error.message,
    code: error.code,
    instance,
    request_id: requestId,
    ...error.extra.members,
  };
  if (error.extra.errors) body.errors = error.extra.errors;
  return {
    statusCode: error.status,
    headers: {
      'Content-Type': 'application/problem+json',
      'Cache-Control': 'no-store',
      ...error.extra.headers,
    },
    body: JSON.stringify(body),
  };
}

/** Anything that is not an ApiError is a defect or an outage: say nothing about it to the client. */
export function internalError(): ApiError {
  return new ApiError(500, 'internal_error', 'Internal Server Error', 'The request could not be completed. Quote the request id when reporting this.');
}
