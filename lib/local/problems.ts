import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { newUlid } from '../domain/ids.js';
import { ApiError, payloadTooLarge } from '../errors.js';
import { problemResponse } from '../http/problem.js';

/**
 * The answers API Gateway gives before a function runs (infra/gateway-responses.ts), played by the
 * local front door in the same problem shape as the functions' answers.
 */
export const frontDoorErrors = {
  tooLarge: () => payloadTooLarge('The request exceeds the 10 MB gateway limit; send large files through an upload session.'),
  headersTooLarge: () =>
    new ApiError(431, 'request_header_fields_too_large', 'Request Header Fields Too Large', 'The request headers are larger than the gateway accepts.'),
  malformed: () => new ApiError(400, 'malformed_request', 'Bad Request', 'The request is not well-formed HTTP.'),
  timeout: () => new ApiError(408, 'request_timeout', 'Request Timeout', 'The request did not arrive in time.'),
  gatewayError: () => new ApiError(502, 'gateway_error', 'Bad Gateway', 'The request could not be completed. Quote the request id when reporting this.'),
} as const;

/** A problem answer with the headers the pipeline's responseHeaders step gives every answer. */
export function frontDoorProblem(error: ApiError, instance: string): APIGatewayProxyResult {
  const requestId = newUlid();
  const result = problemResponse(error, requestId, instance);
  result.headers = { ...result.headers, 'X-Request-ID': requestId, 'X-Content-Type-Options': 'nosniff' };
  return result;
}

/** Node's parser errors, as Node's own clientError answer would classify them. */
function parserError(code: string | undefined): ApiError {
  if (code === 'HPE_HEADER_OVERFLOW') return frontDoorErrors.headersTooLarge();
  if (code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') return frontDoorErrors.tooLarge();
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return frontDoorErrors.timeout();
  return frontDoorErrors.malformed();
}

/** The request target's path, when the request line arrived before the parser gave up. */
function pathOf(rawPacket: unknown): string {
  if (!Buffer.isBuffer(rawPacket)) return '/';
  const target = /^[A-Z]+ (\/[^\s?#]*)/.exec(rawPacket.toString('latin1', 0, 8192))?.[1];
  return target ?? '/';
}

/**
 * Replaces Node's bare 'clientError' answers (431 for oversized headers, 400 for anything it
 * cannot parse) with problem+json, written on the raw socket since there is no response object.
 */
export function answerClientError(error: NodeJS.ErrnoException & { rawPacket?: unknown }, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: { _headerSent?: boolean } })._httpMessage;
  // Node's own rule: never write into a response that has started, nor to a peer that is gone.
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?._headerSent) {
    socket.destroy();
    return;
  }
  const answer = frontDoorProblem(parserError(error.code), pathOf(error.rawPacket));
  const body = Buffer.from(answer.body, 'utf8');
  const headers = { ...answer.headers, 'Content-Length': String(body.length), Connection: 'close' };
  const head = [`HTTP/1.1 ${answer.statusCode} ${STATUS_CODES[answer.statusCode]}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  socket.end(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), body]), () => socket.destroy());
}
