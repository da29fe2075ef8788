import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { newUlid } from '../domain/ids.js';
import { createMetaHandler } from '../http/meta.js';
import type { ApiHandler } from '../http/event.js';
import { runtimeGlobal, type StreamingHandler } from '../http/streaming.js';
import { describeApi } from '../operations/kernel/api-description.js';
import { OPERATIONS, activeFunctions, functionOf, type FunctionName } from '../operations/registry.js';
import { resolveLocalFile } from '../repositories/local.js';
import { useLocalRepositories } from '../repositories/resolve.js';
import { answerClientError, frontDoorErrors, frontDoorProblem } from './problems.js';
import { sourceAssets } from '../console/assets.js';
import { createConsoleHandler } from '../console/handler.js';
import { CONSOLE_PREFIX } from '../console/http.js';
import { passkeyCeremonies } from '../console/routes/ceremonies.js';
import { consolePages } from '../console/routes/pages.js';
import { localStreamingRuntime } from './streaming.js';
import { API_PREFIX } from '../domain/api-paths.js';
import { once } from '../domain/validation.js';
import { createRouter } from '../operations/kernel/router.js';

/** API Gateway's own payload limit (10 MB): larger bodies never reach a function. */
const MAX_BODY = 10 * 1024 * 1024;

/**
 * The bundle gets the description at build time; here it is derived from the registry when a
 * request first needs it, once per process: 0.15 to 0.3 s of CPU that a start serving no meta
 * request, and each test file's server (test/support/api.ts), would otherwise spend again.
 */
const apiDescription = once(() => describeApi(OPERATIONS));

/** The deployed functions, loaded by the names the registry gives: the same code as on AWS. */
async function loadHandlers(): Promise<Map<FunctionName, ApiHandler | StreamingHandler>> {
  // The downloads function finds the streaming runtime where Lambda puts it; other libraries
  // (Powertools' invoke store) may have put their own members on the same global.
  if (typeof runtimeGlobal.awslambda?.streamifyResponse !== 'function')
    runtimeGlobal.awslambda = Object.assign(runtimeGlobal.awslambda ?? {}, localStreamingRuntime);
  const functions = new Map<FunctionName, ApiHandler | StreamingHandler>();
  for (const name of activeFunctions()) {
    const entry = `../../functions/http/${name}.js`;
    const mod = (await import(/* @vite-ignore */ entry)) as { handler: ApiHandler | StreamingHandler };
    functions.set(name, mod.handler);
  }
  return functions;
}

function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The request target as a URL; appended to the origin, since a target such as `//` resolves to no URL. */
function requestUrl(req: IncomingMessage): URL {
  const target = req.url ?? '/';
  return new URL(`http://localhost${target.startsWith('/') ? '' : '/'}${target}`);
}

/** The REST API proxy event API Gateway would send for this request. */
export function toEvent(
  req: IncomingMessage,
  method: string,
  body: Buffer,
  resource: string,
  pathParameters: Record<string, string> | null,
): APIGatewayProxyEvent {
  const url = requestUrl(req);
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    const value = req.rawHeaders[i + 1]!;
    (multiValueHeaders[name] ??= []).push(value);
    headers[name] = headers[name] === undefined ? value : `${headers[name]},${value}`;
  }
  // Without a prototype, like the gateway's parsed JSON: ?__proto__= stays a parameter.
  const query: Record<string, string> = Object.create(null);
  const multiQuery: Record<string, string[]> = Object.create(null);
  for (const [k, v] of url.searchParams) {
    query[k] = v;
    (multiQuery[k] ??= []).push(v);
  }
  const hasQuery = Object.keys(query).length > 0;
  return {
    resource,
    path: url.pathname,
    httpMethod: method,
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiQuery : null,
    pathParameters,
    stageVariables: null,
    // The gateway treats every media type as binary (infra BINARY_MEDIA_TYPES): the bytes as sent.
    body: body.length === 0 ? null : body.toString('base64'),
    isBase64Encoded: body.length > 0,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      authorizer: null,
      protocol: 'HTTP/1.1',
      httpMethod: method,
      path: url.pathname,
      stage: 'local',
      requestId: newUlid(),
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: resource,
      identity: {
        sourceIp: req.socket.remoteAddress?.replace(/^::ffff:/, '') ?? '127.0.0.1',
        userAgent: req.headers['user-agent'] ?? null,
      } as APIGatewayProxyEvent['requestContext']['identity'],
    },
  };
}

// Partial on purpose: without getRemainingTimeInMillis middy sets no early timeout, and a local request has no deadline.
const lambdaContext = (name: string): Context => ({ functionName: name, awsRequestId: newUlid(), callbackWaitsForEmptyEventLoop: false }) as unknown as Context;

function send(res: ServerResponse, result: APIGatewayProxyResult): void {
  const body = result.isBase64Encoded ? Buffer.from(result.body, 'base64') : Buffer.from(result.body ?? '', 'utf8');
  // A HEAD answer names the length of the body it leaves out; multi-value headers (Set-Cookie) go out one line each, as the gateway sends them.
  const headers: Record<string, string | string[]> = { 'Content-Length': String(body.length), ...(result.headers as Record<string, string>) };
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) headers[name] = values.map(String);
  res.writeHead(result.statusCode, headers);
  res.end(body);
}

/** The console's routes, as the gateway has them: /console and everything below it. */
const isConsolePath = (path: string) => path === CONSOLE_PREFIX || path.startsWith(`${CONSOLE_PREFIX}/`);

/**
 * The local HTTP front door: routes like the generated API Gateway routes, then calls the same
 * handlers. What it answers itself (a body over the limit, a request Node cannot parse, a handler
 * that fails) is problem+json with a request id, like API Gateway's problem gateway responses.
 */
export async function createLocalServer(): Promise<Server> {
  // Repositories on this machine's disk are readable here, and only here (lib/repositories/resolve.ts).
  useLocalRepositories(resolveLocalFile);
  const functions = await loadHandlers();
  let meta: ApiHandler | undefined;
  const router = createRouter(OPERATIONS);
  const consoleHandler = createConsoleHandler([consolePages, passkeyCeremonies], sourceAssets());
  const server = createServer(async (req, res) => {
    const path = requestUrl(req).pathname;
    try {
      const body = await readBody(req);
      if (body === 'too-large') {
        send(res, frontDoorProblem(frontDoorErrors.tooLarge(), path));
        return;
      }
      // HEAD goes to the handlers as HEAD, as API Gateway sends it; they answer it like GET.
      const method = req.method ?? 'GET';
      if (isConsolePath(path)) {
        const proxy = path.slice(CONSOLE_PREFIX.length + 1);
        send(res, await consoleHandler(toEvent(req, method, body, `${CONSOLE_PREFIX}/{proxy+}`, proxy ? { proxy } : null)));
        return;
      }
      const m = router.match(method, path);
      if (m.kind === 'found') {
        const event = toEvent(req, method, body, `${API_PREFIX}${m.operation.path}`, m.params);
        const name = functionOf(m.operation);
        const handler = functions.get(name)!;
        if (name === 'downloads') await (handler as StreamingHandler)(event, res, lambdaContext(name));
        else send(res, await (handler as ApiHandler)(event, lambdaContext(name)));
      } else {
        meta ??= createMetaHandler(apiDescription());
        send(res, await meta(toEvent(req, method, body, path, null), lambdaContext('meta')));
      }
    } catch {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      send(res, frontDoorProblem(frontDoorErrors.gatewayError(), path));
    }
  });
  server.on('clientError', answerClientError);
  return server;
}
