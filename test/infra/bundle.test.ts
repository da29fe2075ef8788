import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { build } from 'esbuild';
import { ulid } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { esbuildOptions } from '../../infra/bundling.js';
import { SCAN_RESULT_DETAIL_TYPE } from '../../infra/malware-protection.js';
import { queueUrl } from '../../lib/jobs/queues.js';
import { sqs } from '../../lib/jobs/sqs.js';
import { fixtures, startApi, type Api } from '../support/api.js';
import { form, png } from '../support/files.js';
import { useTestServices } from '../support/services.js';

const run = promisify(execFile);
const FUNCTIONS = fileURLToPath(new URL('../../functions/', import.meta.url));
/** Bundle name -> entry under functions/, built the way the CDK app builds them. */
const ENTRIES = { meta: 'http/meta', organisations: 'http/organisations', downloads: 'http/downloads', scan: 'workers/scan', verdict: 'workers/scan-verdict' } as const;
type BundleName = keyof typeof ENTRIES;

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

interface DriverOutput<R> {
  handlerType: string;
  result?: R;
}

const SDK_ENV = {
  AWS_REGION: 'ap-southeast-2',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'assessment-ops-bundle-'));
  await Promise.all(Object.entries(ENTRIES).map(([name, entry]) => build(esbuildOptions(`${FUNCTIONS}${entry}.ts`, join(dir, name, 'index.mjs')))));
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function loadBundle<R>(name: BundleName, env: Record<string, string>, event?: unknown): Promise<DriverOutput<R>> {
  const resultFile = join(dir, `${name}-${Math.random().toString(36).slice(2)}.json`);
  await run(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', DRIVER], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      ...SDK_ENV,
      ...env,
      BUNDLE: join(dir, name, 'index.mjs'),
      RESULT_FILE: resultFile,
      LOG_LEVEL: 'ERROR',
      ...(event === undefined ? {} : { EVENT: JSON.stringify(event) }),
      ...(name === 'downloads' ? { STREAMING: '1' } : {}),
    },
    timeout: 20_000,
  });
  return JSON.parse(await readFile(resultFile, 'utf8')) as DriverOutput<R>;
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

describe('bundled HTTP functions', () => {
  let services: Record<string, string>;
  let operator: Awaited<ReturnType<typeof fixtures.operator>>;

  beforeAll(async () => {
    const { tableName, secret } = await useTestServices();
    operator = await fixtures.operator();
    services = { DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT!, TABLE_NAME: tableName, TOKEN_HASH_SECRET: secret };
  }, 60_000);

  const load = (name: BundleName, request?: APIGatewayProxyEvent) => loadBundle<APIGatewayProxyResult>(name, services, request);

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

  it('streams the answer of the downloads bundle: metadata first, then the body', async () => {
    const { result } = await load('downloads', event('GET', `/api/v1/organisations/${operator.organisationId}/logo/file`, operator.org));
    expect(result?.statusCode).toBe(404);
    expect(result?.headers?.['Content-Type']).toBe('application/problem+json');
    expect(JSON.parse(result!.body)).toMatchObject({ status: 404, detail: 'The logo is not ready.' });
  }, 30_000);

  it('answers 401 from the organisations bundle without a credential', async () => {
    const { result } = await load('organisations', event('GET', `/api/v1/organisations/${operator.organisationId}`));
    expect(result?.statusCode).toBe(401);
    expect(JSON.parse(result!.body)).toMatchObject({ code: 'unauthenticated' });
  }, 30_000);
});

/**
 * The AWS path of an upload through the bundled workers, with the environment the workers stack
 * gives them (no token-hash secret, MALWARE_SCANNER=guardduty): the scan worker validates the file
 * with file-type and image-size, then waits for the malware verdict that the verdict bundle
 * applies from a GuardDuty result event.
 */
describe('bundled workers', () => {
  let api: Api;
  let env: Record<string, string>;

  beforeAll(async () => {
    api = await startApi({}, { jobs: 'manual' });
    env = {
      DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT!,
      S3_ENDPOINT: process.env.S3_ENDPOINT!,
      TABLE_NAME: process.env.TABLE_NAME!,
      BUCKET_NAME: process.env.BUCKET_NAME!,
      MALWARE_SCANNER: 'guardduty',
    };
  }, 60_000);

  afterAll(() => api.stop());

  async function queuedScan(): Promise<SQSEvent> {
    const received = await sqs().send(new ReceiveMessageCommand({ QueueUrl: queueUrl('scan'), MaxNumberOfMessages: 1, WaitTimeSeconds: 1 }));
    const message = received.Messages?.[0];
    if (!message?.Body || !message.MessageId || !message.ReceiptHandle) throw new Error('no scan job was queued');
    const now = String(Date.now());
    return {
      Records: [
        {
          messageId: message.MessageId,
          receiptHandle: message.ReceiptHandle,
          body: message.Body,
          attributes: { ApproximateReceiveCount: '1', SentTimestamp: now, SenderId: 'api', ApproximateFirstReceiveTimestamp: now },
          messageAttributes: {},
          md5OfBody: '',
          eventSource: 'aws:sqs',
          eventSourceARN: 'arn:aws:sqs:ap-southeast-2:123456789012:scan',
          awsRegion: 'ap-southeast-2',
        },
      ],
    };
  }

  const scanResult = (objectKey: string, scanResultStatus: string) => ({
    version: '0',
    id: ulid(),
    'detail-type': SCAN_RESULT_DETAIL_TYPE,
    source: 'aws.guardduty',
    account: '123456789012',
    time: new Date().toISOString(),
    region: 'ap-southeast-2',
    resources: [],
    detail: { s3ObjectDetails: { bucketName: env.BUCKET_NAME, objectKey }, scanResultDetails: { scanResultStatus } },
  });

  it('validates an image in the scan bundle and releases it from the verdict bundle', async () => {
    const op = await fixtures.operator();
    const path = `/api/v1/organisations/${op.organisationId}/logo`;
    const read = () => api.request('GET', path, { token: op.org });
    const image = png(64, 32);
    const etag = (await read()).headers.get('etag')!;
    expect((await api.request('POST', path, { token: op.org, form: form(image, 'logo.png'), headers: { 'Idempotency-Key': ulid(), 'If-Match': etag } })).status).toBe(201);

    const job = await queuedScan();
    const scanned = await loadBundle<SQSBatchResponse>('scan', env, job);
    expect(scanned).toEqual({ handlerType: 'function', result: { batchItemFailures: [] } });
    expect((await read()).body.data).toMatchObject({ status: 'quarantine' });

    const uploadId = (JSON.parse(job.Records[0]!.body) as { upload_id: string }).upload_id;
    const verdict = await loadBundle<unknown>('verdict', env, scanResult(`quarantine/${uploadId}`, 'NO_THREATS_FOUND'));
    expect(verdict.handlerType).toBe('function');
    expect((await read()).body.data).toMatchObject({ status: 'ready', content_type: 'image/png', width: 64, height: 32 });
    expect((await api.request('GET', `${path}/file`, { token: op.org })).bytes.equals(image)).toBe(true);
  }, 60_000);
});
