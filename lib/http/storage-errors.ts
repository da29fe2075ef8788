/**
 * Errors that say storage (DynamoDB, S3, SQS) is out of reach or overloaded right now, after the
 * SDK's own retries: the contract's 503, never a 500. Decided by `name` and `code`, which survive
 * minification, never by a class's constructor name, which does not.
 */
const THROTTLED = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'SlowDown',
  'TransactionConflictError',
  'TransactionThrottledError',
  'UnprocessedItemsError',
]);
/** What the SDK throws when no answer came: its own timeouts and Node's socket errors. */
const UNREACHABLE_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException']);
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
]);

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  $fault?: unknown;
  cause?: unknown;
  errors?: unknown;
}

export function isStorageUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 3) return false;
  const e = error as ErrorLike;
  if (typeof e.name === 'string' && (THROTTLED.has(e.name) || UNREACHABLE_NAMES.has(e.name))) return true;
  if (typeof e.code === 'string' && UNREACHABLE_CODES.has(e.code)) return true;
  if (e.message === 'socket hang up') return true;
  // A service-side failure the SDK's retries did not get past (HTTP 5xx from the service).
  if (e.$fault === 'server') return true;
  // Node reports a connection refused on every address of a host as an AggregateError.
  const nested = [e.cause, ...(Array.isArray(e.errors) ? e.errors : [])];
  return nested.some((inner) => isStorageUnavailable(inner, depth + 1));
}
