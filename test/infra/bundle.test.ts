import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { esbuildOptions } from '../../infra/bundling.js';
import { fixtures } from '../support/api.js';
import { useTestServices } from '../support/services.js';

const run = promisify(execFile);
const HTTP_FUNCTIONS = fileURLToPath(new URL('../../functions/http/', import.meta.url));

/**
 * Loads a bundle in a plain Node process, outside vitest's module runner and away from the
 * repository's node_modules, the way the Lambda runtime does: a dependency left out of the bundle
 * or a CommonJS `require` the ESM output cannot serve fails here.
 */
const DRIVER = `
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const mod = await import(pathToFileURL(process.env.BUNDLE).href);
const out = { handlerType: typeof mod.handler };
if (process.env.EVENT) {
  const context = { awsRequestId: 'test', functionName: 'bundle-test', getRemainingTimeInMillis: () => 28000 };
  out.result = await mod.handler(JSON.parse(process.env.EVENT), context);
}
writeFileSync(process.env.RESULT_FILE, JSON.stringify(out));
`;

interface DriverOutput {
  handlerType: string;
  result?: APIGatewayProxyResult;
}

function event(method: string, path: string, token?: string): APIGatewayProxyEvent {
  const headers: Record<string, string> = { Accept: 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) };
  return {
    httpMethod: method,
    path,
    resource: '/{proxy+}',
    body: null,
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
        accessKey: null, accountId: null, apiKey: null, apiKeyId: null, caller: null, clientCert: null,
        cognitoAuthenticationProvider: null, cognitoAuthenticationType: null, cognitoIdentityId: null,
        cognitoIdentityPoolId: null, principalOrgId: null, sourceIp: '203.0.113.7', user: null,
        userAgent: 'bundle-test', userArn: null,
      },
    },
  };
}

describe('bundled functions', () => {
  let dir: string;
  const bundles = new Map<string, string>();
  let services: Record<string, string>;
  let operator: Awaited<ReturnType<typeof fixtures.operator>>;

  beforeAll(async () => {
    const { tableName, secret } = await useTestServices();
    operator = await fixtures.operator();
    services = {
      DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT!,
      TABLE_NAME: tableName,
      TOKEN_HASH_SECRET: secret,
      AWS_REGION: 'ap-southeast-2',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    };
    dir = await mkdtemp(join(tmpdir(), 'assessment-ops-bundle-'));
    await Promise.all(
      ['meta', 'organisations'].map(async (name) => {
        const outfile = join(dir, name, 'index.mjs');
        await build(esbuildOptions(`${HTTP_FUNCTIONS}${name}.ts`, outfile));
        bundles.set(name, outfile);
      }),
    );
  }, 60_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function load(name: string, request?: APIGatewayProxyEvent): Promise<DriverOutput> {
    const resultFile = join(dir, `${name}-${Math.random().toString(36).slice(2)}.json`);
    await run(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', DRIVER], {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '',
        ...services,
        BUNDLE: bundles.get(name)!,
        RESULT_FILE: resultFile,
        LOG_LEVEL: 'ERROR',
        ...(request ? { EVENT: JSON.stringify(request) } : {}),
      },
      timeout: 20_000,
    });
    return JSON.parse(await readFile(resultFile, 'utf8')) as DriverOutput;
  }

  it('serves the OpenAPI 3.1 document from the meta bundle', async () => {
    const { result } = await load('meta', event('GET', '/api/v1/openapi.json'));
    expect(result?.statusCode).toBe(200);
    expect(JSON.parse(result!.body)).toMatchObject({ openapi: '3.1.0' });
  }, 30_000);

  it('answers an unknown path with a 404 problem and a request id from the meta bundle', async () => {
    const { result } = await load('meta', event('GET', '/api/v1/nope'));
    expect(result?.statusCode).toBe(404);
    expect(result?.headers?.['Content-Type']).toBe('application/problem+json');
    expect(result?.headers?.['X-Request-ID']).toEqual(expect.any(String));
    expect(JSON.parse(result!.body)).toMatchObject({ status: 404, code: 'not_found' });
  }, 30_000);

  it('answers a real read from the organisations bundle, authenticated against the table', async () => {
    const { handlerType, result } = await load('organisations', event('GET', `/api/v1/organisations/${operator.organisationId}`, operator.org));
    expect(handlerType).toBe('function');
    expect(result?.statusCode).toBe(200);
    expect(result?.headers?.ETag).toMatch(/^"1-/);
    expect(JSON.parse(result!.body).data).toMatchObject({ id: operator.organisationId });
  }, 30_000);

  it('answers 401 from the organisations bundle without a credential', async () => {
    const { result } = await load('organisations', event('GET', `/api/v1/organisations/${operator.organisationId}`));
    expect(result?.statusCode).toBe(401);
    expect(JSON.parse(result!.body)).toMatchObject({ code: 'unauthenticated' });
  }, 30_000);
});
