import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { logger } from '../log.js';
import type { ApiHandler } from './event.js';

/**
 * The part of Lambda's Node.js runtime that streams responses (the `awslambda` global). API
 * Gateway's streaming Lambda proxy integration reads the metadata, then the body as it comes, so
 * downloads are not held to the 6 MB of a buffered response (DESIGN.md section 8).
 */
export interface StreamingRuntime {
  streamifyResponse(handler: StreamingHandler): unknown;
  HttpResponseStream: { from(stream: Writable, metadata: { statusCode: number; headers: Record<string, string> }): Writable };
}
export type StreamingHandler = (event: APIGatewayProxyEvent, responseStream: Writable, context: Context) => Promise<void>;

/** The runtime's global, absent outside Lambda (the local server installs its own). */
// @types/aws-lambda declares `awslambda` as an ever-present namespace; this reads it as what it is, possibly absent.
export const runtimeGlobal = globalThis as unknown as { awslambda?: StreamingRuntime };

const CHUNK = 1024 * 1024;

/**
 * A pipeline answer whose body is still to be read (a file streamed from storage): it travels
 * beside the result, through the steps that only touch status and headers, to `writeStreamed`.
 */
const STREAM = Symbol('body stream');
type WithStream = APIGatewayProxyResult & { [STREAM]?: Readable };

export function withStream(result: APIGatewayProxyResult, stream: Readable): APIGatewayProxyResult {
  return Object.assign(result, { [STREAM]: stream });
}

/** The body stream of a result, taken off it: whoever takes it must consume or destroy it. */
export function takeStream(result: APIGatewayProxyResult): Readable | undefined {
  const stream = (result as WithStream)[STREAM];
  delete (result as WithStream)[STREAM];
  return stream;
}

/** A pipeline answer as a streamed response: status and headers first, then the body in chunks. */
export async function writeStreamed(result: APIGatewayProxyResult, responseStream: Writable, runtime: StreamingRuntime): Promise<void> {
  const headers = Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k, String(v)]));
  const out = runtime.HttpResponseStream.from(responseStream, { statusCode: result.statusCode, headers });
  const stream = takeStream(result);
  if (stream) return pipeBody(stream, out, result.statusCode);
  const body = result.isBase64Encoded ? Buffer.from(result.body, 'base64') : Buffer.from(result.body ?? '', 'utf8');
  // Lambda sends the status and headers with the first write, so an empty body still writes once.
  const chunks = body.length === 0 ? [body] : Array.from({ length: Math.ceil(body.length / CHUNK) }, (_, i) => body.subarray(i * CHUNK, (i + 1) * CHUNK));
  return pipeBody(Readable.from(chunks), out, result.statusCode);
}

async function pipeBody(body: Readable, out: Writable, status: number): Promise<void> {
  try {
    await pipeline(body, out);
  } catch (error) {
    // The status is out; what is left to report is the client or the storage going away, not a function error.
    logger.warn('streamed response ended early', { status, error: error as Error });
  }
}

/** The request pipeline behind a streamed response: the same steps, errors and headers as every other route. */
export function streamingApiHandler(handler: ApiHandler, runtime: StreamingRuntime): unknown {
  return runtime.streamifyResponse(async (event, responseStream, context) => writeStreamed(await handler(event, context), responseStream, runtime));
}
