/**
 * Errors with a stable `code`. Handlers and middlewares throw them; the error mapper turns them into
 * application/problem+json (RFC 9457). Clients branch on status and code, never on detail.
 */
export interface FieldError {
  pointer: string;
  detail: string;
  code?: string;
}

export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    detail: string,
    readonly extra: { errors?: FieldError[]; headers?: Record<string, string>; members?: Record<string, unknown> } = {},
  ) {
    super(detail);
  }
}

export const badRequest = (code: string, detail: string) => new ApiError(400, code, 'Bad Request', detail);
export const unauthorized = () =>
  new ApiError(401, 'unauthenticated', 'Unauthorized', 'The credential is missing, invalid, expired, revoked or not valid for this endpoint.', {
    headers: { 'WWW-Authenticate': 'Bearer realm="api"' },
  });
export const forbidden = (code: string, detail: string) => new ApiError(403, code, 'Forbidden', detail);
export const notFound = (detail = 'The resource does not exist or is not available to this credential.') => new ApiError(404, 'not_found', 'Not Found', detail);
export const methodNotAllowed = (allow: string[]) =>
  new ApiError(405, 'method_not_allowed', 'Method Not Allowed', 'The resource does not support this method.', {
    headers: { Allow: allow.join(', ') },
  });
export const notAcceptable = () => new ApiError(406, 'not_acceptable', 'Not Acceptable', 'This endpoint answers with application/json only.');
export const conflict = (code: string, detail: string, members?: Record<string, unknown>) => new ApiError(409, code, 'Conflict', detail, { members });
export const preconditionFailed = () =>
  new ApiError(412, 'etag_mismatch', 'Precondition Failed', 'The If-Match ETag is stale: read the resource again, reconcile and retry with its current ETag.');
export const payloadTooLarge = (detail: string) => new ApiError(413, 'payload_too_large', 'Content Too Large', detail);
export const unsupportedMediaType = (expected: string[]) =>
  new ApiError(415, 'unsupported_media_type', 'Unsupported Media Type', `The request body must be sent as ${expected.join(' or ')}.`, {
    headers: { 'Accept-Patch': expected.join(', ') },
  });
export const validationFailed = (errors: FieldError[], detail = 'The request is not valid.') =>
  new ApiError(422, 'validation_failed', 'Unprocessable Content', detail, { errors });
export const preconditionRequired = () =>
  new ApiError(428, 'if_match_required', 'Precondition Required', 'This operation needs an If-Match header with the current ETag.');
export const tooManyRequests = (retryAfterSeconds: number, budget: string) =>
  new ApiError(429, 'rate_limited', 'Too Many Requests', `The ${budget} budget is spent for this minute; retry after the Retry-After delay.`, {
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });
export const storageUnavailable = () =>
  new ApiError(503, 'storage_unavailable', 'Service Unavailable', 'Storage is temporarily unavailable or throttled; retry later.', {
    headers: { 'Retry-After': '1' },
  });

/**
 * A conflict the handler resolves on a fresh run (a value it chose was taken meanwhile, such as a
 * generated slug); after one more attempt the final error stands.
 */
export class RetryableConflict extends Error {
  override readonly name = 'RetryableConflict';

  constructor(readonly final: Error) {
    super(final.message);
  }
}
