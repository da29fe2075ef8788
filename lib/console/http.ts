import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { newUlid } from '../domain/ids.js';
import { ApiError } from '../errors.js';
import { problemResponse } from '../http/problem.js';
import { readJsonBody } from '../domain/json-body.js';

/** A console request as the handlers see it: the gateway event, parsed once. */
export interface ConsoleRequest {
  requestId: string;
  method: string;
  /** The path below /console, starting with `/`. */
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  cookies: Record<string, string>;
  body: Buffer;
  sourceIp: string;
}

export interface ConsoleResponse {
  status: number;
  headers?: Record<string, string>;
  cookies?: string[];
  body: string | Buffer;
}

export const CONSOLE_PREFIX = '/console';

function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    // The first cookie of a name wins, as browsers send the most specific path first.
    if (!(name in out)) out[name] = part.slice(eq + 1).trim();
  }
  return out;
}

export function consoleRequest(event: APIGatewayProxyEvent): ConsoleRequest {
  const headers: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(event.headers ?? {})) if (typeof value === 'string') headers[name.toLowerCase()] = value;
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(event.queryStringParameters ?? {})) if (typeof value === 'string') query.set(name, value);
  const raw = event.body ?? '';
  const body = event.isBase64Encoded ? Buffer.from(raw, 'base64') : Buffer.from(raw, 'utf8');
  const below = event.path.startsWith(CONSOLE_PREFIX) ? event.path.slice(CONSOLE_PREFIX.length) : event.path;
  return {
    requestId: newUlid(),
    method: event.httpMethod.toUpperCase(),
    path: below === '' ? '/' : below,
    query,
    headers,
    cookies: parseCookies(headers.cookie),
    body,
    sourceIp: event.requestContext?.identity?.sourceIp ?? 'unknown',
  };
}

/** A urlencoded form body; anything else reads as an empty form, which every handler refuses. */
export function formOf(request: ConsoleRequest): URLSearchParams {
  const type = request.headers['content-type'] ?? '';
  if (!type.toLowerCase().startsWith('application/x-www-form-urlencoded')) return new URLSearchParams();
  return new URLSearchParams(request.body.toString('utf8'));
}

/** A JSON object body, read by the API's rule (no key named twice), or undefined (the ceremony endpoints answer that 400). */
export function jsonOf(request: ConsoleRequest): Record<string, unknown> | undefined {
  const type = request.headers['content-type'] ?? '';
  if (!type.toLowerCase().startsWith('application/json')) return undefined;
  try {
    const value = readJsonBody(request.body);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Set-Cookie values travel as multi-value headers: API Gateway's REST proxy keeps each one. */
export function toResult(response: ConsoleResponse, requestId: string, securityHeaders: Record<string, string>): APIGatewayProxyResult {
  const binary = Buffer.isBuffer(response.body);
  return {
    statusCode: response.status,
    headers: { ...securityHeaders, 'X-Request-ID': requestId, ...response.headers },
    ...(response.cookies?.length ? { multiValueHeaders: { 'Set-Cookie': response.cookies } } : {}),
    body: binary ? (response.body as Buffer).toString('base64') : (response.body as string),
    isBase64Encoded: binary,
  };
}

export const redirect = (location: string, cookies?: string[]): ConsoleResponse => ({ status: 303, headers: { Location: location }, cookies, body: '' });

export const json = (status: number, value: unknown, cookies?: string[]): ConsoleResponse => ({
  status,
  headers: { 'Content-Type': 'application/json' },
  cookies,
  body: JSON.stringify(value),
});

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  409: 'Conflict',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
};

/** RFC 9457 for the ceremony endpoints, which scripts read: the API's problem body, so clients read one shape. */
export function problem(status: number, code: string, detail: string, request: ConsoleRequest, headers?: Record<string, string>): ConsoleResponse {
  const answer = problemResponse(
    new ApiError(status, code, TITLES[status] ?? 'Error', detail, { headers }),
    request.requestId,
    `${CONSOLE_PREFIX}${request.path}`,
  );
  return { status, headers: answer.headers as Record<string, string>, body: answer.body };
}
