import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { codeFiles } from '../../infra/bundling.js';
import { functionBuild, type FunctionBuild } from './function-builds.js';

const run = promisify(execFile);

/**
 * Imports a bundle, counting what zod constructs meanwhile through its global configuration's
 * post-processor, which a bundled zod takes from globalThis when it loads.
 */
const COUNT_BUILT = `
globalThis.awslambda = { streamifyResponse: (handler) => handler, HttpResponseStream: { from: (stream) => stream } };
let built = 0;
globalThis.__zod_globalConfig = { postProcessor: () => { built += 1; } };
await import(process.env.BUNDLE_URL);
process.stdout.write(String(built));
`;
const FUNCTIONS = fileURLToPath(new URL('../../functions/', import.meta.url));

/**
 * Loads a bundle in a plain Node process, outside vitest's module runner and away from the
 * repository's node_modules, the way the Lambda runtime does: a dependency left out of the bundle
 * or a CommonJS `require` the ESM output cannot serve fails here.
 */
const DRIVER = `
import { writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
// A streaming function gets Lambda's awslambda global; this one records the metadata and the body.
const streamed = { chunks: [] };
if (process.env.STREAMING) {
  globalThis.awslambda = {
    streamifyResponse: (handler) => handler,
    HttpResponseStream: { from: (stream, metadata) => { streamed.metadata = metadata; return stream; } },
  };
}
const mod = await import(pathToFileURL(process.env.BUNDLE).href);
const out = { handlerType: typeof mod.handler };
if (process.env.EVENT) {
  const context = { awsRequestId: 'test', functionName: 'bundle-test', getRemainingTimeInMillis: () => 28000 };
  if (process.env.STREAMING) {
    const sink = new Writable({ write(chunk, _encoding, done) { streamed.chunks.push(chunk); done(); } });
    await mod.handler(JSON.parse(process.env.EVENT), sink, context);
    out.result = { statusCode: streamed.metadata.statusCode, headers: streamed.metadata.headers, body: Buffer.concat(streamed.chunks).toString('utf8') };
  } else {
    out.result = await mod.handler(JSON.parse(process.env.EVENT), context);
  }
}
writeFileSync(process.env.RESULT_FILE, JSON.stringify(out));
`;

export interface DriverOutput<R> {
  handlerType: string;
  result?: R;
  /** What the function wrote to stdout and stderr: its structured logs. */
  logs: string;
}

const SDK_ENV = {
  AWS_REGION: 'ap-southeast-2',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

export interface Bundles {
  dir: string;
  /** The bundle's code, as it would be deployed: index.mjs and every chunk. */
  code(name: string): Promise<string>;
  /** The source files the bundle holds in any of its files, relative to the repository (esbuild's metafile). */
  inputs(name: string): string[];
  /** The source files of the chunks a cold start loads: index.mjs and what it imports statically, not what an `import()` loads later. */
  initInputs(name: string): string[];
  /** What the bundle's files import from outside them (esbuild's metafile): what the runtime must provide. */
  externals(name: string): string[];
  load<R>(name: string, env: Record<string, string>, event?: unknown): Promise<DriverOutput<R>>;
  /** How many zod instances (schemas and checks) the bundle constructs while its modules load, in a fresh process. */
  builtAtInit(name: string): Promise<number>;
  remove(): Promise<void>;
}

/**
 * The named entries under functions/ (bundle name -> entry) built the way the CDK app builds them
 * (test/support/function-builds.ts), with a folder of the file's own for what the loads write.
 */
export async function buildBundles(entries: Record<string, string>): Promise<Bundles> {
  const dir = await mkdtemp(join(tmpdir(), 'assessment-ops-bundle-'));
  const builds = new Map<string, FunctionBuild>();
  await Promise.all(Object.entries(entries).map(async ([name, entry]) => builds.set(name, await functionBuild(`${FUNCTIONS}${entry}.ts`))));
  const outdir = (name: string) => builds.get(name)!.outdir;
  const metafiles = new Map([...builds].map(([name, build]) => [name, build.metafile]));
  return {
    dir,
    code: async (name) => (await Promise.all((await codeFiles(outdir(name))).map((file) => readFile(file, 'utf8')))).join('\n'),
    inputs: (name) => Object.keys(metafiles.get(name)?.inputs ?? {}),
    initInputs: (name) => {
      const outputs = metafiles.get(name)?.outputs ?? {};
      const loaded = new Set<string>();
      const visit = (path: string) => {
        if (loaded.has(path)) return;
        loaded.add(path);
        for (const imported of outputs[path]?.imports ?? []) if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
      };
      for (const path of Object.keys(outputs)) if (path.endsWith('/index.mjs')) visit(path);
      return [...new Set([...loaded].flatMap((path) => Object.keys(outputs[path]?.inputs ?? {})))];
    },
    externals: (name) => Object.values(metafiles.get(name)?.outputs ?? {}).flatMap((output) => output.imports.filter((i) => i.external).map((i) => i.path)),
    async load<R>(name: string, env: Record<string, string>, event?: unknown) {
      const resultFile = join(dir, `${name}-${Math.random().toString(36).slice(2)}.json`);
      const { stdout, stderr } = await run(process.execPath, ['--input-type=module', '-e', DRIVER], {
        cwd: dir,
        env: {
          PATH: process.env.PATH ?? '',
          ...SDK_ENV,
          ...env,
          BUNDLE: join(outdir(name), 'index.mjs'),
          RESULT_FILE: resultFile,
          LOG_LEVEL: 'ERROR',
          ...(event === undefined ? {} : { EVENT: JSON.stringify(event) }),
          ...(name === 'downloads' ? { STREAMING: '1' } : {}),
        },
        timeout: 20_000,
      });
      return { ...(JSON.parse(await readFile(resultFile, 'utf8')) as Omit<DriverOutput<R>, 'logs'>), logs: stdout + stderr };
    },
    async builtAtInit(name) {
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', COUNT_BUILT], {
        env: {
          PATH: process.env.PATH ?? '',
          ...SDK_ENV,
          TABLE_NAME: 'bundle-test',
          BUCKET_NAME: 'bundle-test',
          LOG_LEVEL: 'ERROR',
          BUNDLE_URL: pathToFileURL(join(outdir(name), 'index.mjs')).href,
        },
        timeout: 20_000,
      });
      return Number(stdout);
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** The REST API proxy event API Gateway would send. */
export function gatewayEvent(
  method: string,
  path: string,
  options: { token?: string; headers?: Record<string, string>; body?: unknown } = {},
): APIGatewayProxyEvent {
  const headers: Record<string, string> = {
    Accept: 'application/json',
    ...(options.token ? { Authorization: `Bearer ${options.token}` } : {}),
    ...(options.body === undefined ? {} : { 'Content-Type': 'application/merge-patch+json' }),
    ...options.headers,
  };
  return {
    httpMethod: method,
    path,
    resource: '/{proxy+}',
    body: options.body === undefined ? null : JSON.stringify(options.body),
    isBase64Encoded: false,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    requestContext: {
      accountId: '123456789012',
      apiId: 'api',
      authorizer: null,
      protocol: 'HTTP/1.1',
      httpMethod: method,
      path: `/prod${path}`,
      stage: 'prod',
      requestId: 'gateway-request-id',
      requestTimeEpoch: Date.now(),
      resourceId: 'resource',
      resourcePath: '/{proxy+}',
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: '203.0.113.7',
        user: null,
        userAgent: 'bundle-test',
        userArn: null,
      },
    },
  };
}
