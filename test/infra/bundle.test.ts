import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyResult, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { newUlid } from '../../lib/domain/ids.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCAN_RESULT_DETAIL_TYPE } from '../../infra/malware-protection.js';
import { queueUrl } from '../../lib/queues/queues.js';
import { sqs } from '../../lib/queues/sqs.js';
import { fixtures, startApi, type Api } from '../support/api.js';
import { buildBundles, gatewayEvent as event, type Bundles } from '../support/bundles.js';
import { form, png } from '../support/files.js';
import { useTestServices } from '../support/services.js';

/** Bundle name -> entry under functions/, built the way the CDK app builds them. */
const ENTRIES = {
  meta: 'http/meta',
  organisations: 'http/organisations',
  downloads: 'http/downloads',
  console: 'http/console',
  passkeys: 'http/passkeys',
  scan: 'workers/scan',
  verdict: 'workers/scan-verdict',
} as const;
type BundleName = keyof typeof ENTRIES;

let bundles: Bundles;

// Five of these are bundle-contents.test.ts's too: the file that comes second waits for the builds of the first.
beforeAll(async () => {
  bundles = await buildBundles(ENTRIES);
}, 120_000);

afterAll(async () => {
  await bundles.remove();
});

const loadBundle = <R>(name: BundleName, env: Record<string, string>, request?: unknown) => bundles.load<R>(name, env, request);

describe('bundled HTTP functions', () => {
  let services: Record<string, string>;
  let operator: Awaited<ReturnType<typeof fixtures.operator>>;

  beforeAll(async () => {
    const { tableName, secret } = await useTestServices();
    operator = await fixtures.operator();
    services = {
      DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT!,
      DYNAMODB_LOCAL_DATABASE: process.env.DYNAMODB_LOCAL_DATABASE!,
      TABLE_NAME: tableName,
      TOKEN_HASH_SECRET: secret,
    };
  }, 60_000);

  const load = (name: BundleName, request?: unknown) => loadBundle<APIGatewayProxyResult>(name, services, request);

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
    const { handlerType, result } = await load('organisations', event('GET', `/api/v1/organisations/${operator.organisationId}`, { token: operator.org }));
    expect(handlerType).toBe('function');
    expect(result?.statusCode).toBe(200);
    expect(result?.headers?.ETag).toMatch(/^"1-/);
    expect(JSON.parse(result!.body).data).toMatchObject({ id: operator.organisationId });
  }, 30_000);

  it('streams the answer of the downloads bundle: metadata first, then the body', async () => {
    const { result } = await load('downloads', event('GET', `/api/v1/organisations/${operator.organisationId}/logo/file`, { token: operator.org }));
    expect(result?.statusCode).toBe(404);
    expect(result?.headers?.['Content-Type']).toBe('application/problem+json');
    expect(JSON.parse(result!.body)).toMatchObject({ status: 404, detail: 'The logo is not ready.' });
  }, 30_000);

  it('serves the console sign-in page from the console bundle, with its security headers', async () => {
    const { result } = await load('console', event('GET', '/console/sign-in'));
    expect(result?.statusCode).toBe(200);
    expect(result?.headers?.['Content-Type']).toBe('text/html; charset=utf-8');
    expect(result?.headers?.['Content-Security-Policy']).toContain("script-src 'self'");
    expect(result!.body).toContain('Sign in with a passkey');
  }, 30_000);

  it('serves the WebAuthn browser library from the files copied beside the console bundle', async () => {
    const { result } = await load('console', event('GET', '/console/assets/webauthn.js'));
    expect(result?.statusCode).toBe(200);
    expect(result?.isBase64Encoded).toBe(true);
    expect(Buffer.from(result!.body, 'base64').toString('utf8')).toContain('SimpleWebAuthnBrowser');
  }, 30_000);

  it('begins a passkey sign-in from the passkeys bundle for the configured relying party', async () => {
    const origin = { CONSOLE_ORIGIN: 'https://console.example', CONSOLE_RP_ID: 'console.example' };
    const { result } = await loadBundle<APIGatewayProxyResult>(
      'passkeys',
      { ...services, ...origin },
      event('POST', '/console/sign-in/options', { headers: { Origin: 'https://console.example', 'Content-Type': 'application/json' }, body: {} }),
    );
    expect(result?.statusCode).toBe(200);
    expect(JSON.parse(result!.body)).toMatchObject({ rpId: 'console.example', userVerification: 'required' });
    expect(result?.multiValueHeaders?.['Set-Cookie']?.[0]).toMatch(/^__Host-aop_ceremony=/);
  }, 30_000);

  it('answers 422 with the field messages from the organisations bundle for a body that fails validation', async () => {
    const res = await load(
      'organisations',
      event('POST', '/api/v1/organisations', {
        token: operator.admin,
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': newUlid() },
        body: { name: '  ', timezone: 'Mars/Olympus' },
      }),
    );
    expect(res.result?.statusCode).toBe(422);
    const errors: { pointer: string; detail: string }[] = JSON.parse(res.result!.body).errors;
    expect(errors.map((e) => e.pointer).sort()).toEqual(['/name', '/timezone']);
    expect(errors.every((e) => e.detail.length > 0)).toBe(true);
  }, 30_000);

  it('answers 400 malformed_multipart from the organisations bundle for a logo body the form reader cannot read', async () => {
    const request = event('POST', `/api/v1/organisations/${operator.organisationId}/logo`, {
      token: operator.org,
      headers: { 'Content-Type': 'multipart/form-data; boundary=XyZ', 'Idempotency-Key': newUlid() },
    });
    const { result } = await load('organisations', { ...request, body: '--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nabc' });
    expect(result?.statusCode).toBe(400);
    expect(JSON.parse(result!.body)).toMatchObject({ code: 'malformed_multipart' });
  }, 30_000);

  it('answers 401 from the organisations bundle without a credential', async () => {
    const { result } = await load('organisations', event('GET', `/api/v1/organisations/${operator.organisationId}`));
    expect(result?.statusCode).toBe(401);
    expect(JSON.parse(result!.body)).toMatchObject({ code: 'unauthenticated' });
  }, 30_000);
});

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

/** A port nothing listens on: storage that is down. */
async function closedEndpoint(): Promise<string> {
  const server = createServer();
  const endpoint = await listen(server);
  await new Promise((resolve) => server.close(resolve));
  return endpoint;
}

/**
 * DynamoDB Local behind a proxy that cancels every TransactWriteItems for a conflicting
 * transaction, as DynamoDB does under contention; every other call goes through.
 */
function conflictingDynamoDb(target: string): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.headers['x-amz-target'] === 'DynamoDB_20120810.TransactWriteItems') {
        res.writeHead(400, { 'Content-Type': 'application/x-amz-json-1.0' });
        res.end(
          JSON.stringify({
            __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
            message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict]',
            CancellationReasons: [{ Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' }],
          }),
        );
        return;
      }
      const url = new URL(target);
      const forward = httpRequest({ host: url.hostname, port: url.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      forward.end(Buffer.concat(chunks));
    });
  });
}

/** The minified error mapper: classes are renamed in the bundle, so only names and codes can tell a storage failure. */
describe('storage failures through a bundled function', () => {
  let services: Record<string, string>;
  let operator: Awaited<ReturnType<typeof fixtures.operator>>;
  let proxy: Server;
  let proxied: string;

  beforeAll(async () => {
    const { tableName, secret } = await useTestServices();
    operator = await fixtures.operator();
    services = {
      DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT!,
      DYNAMODB_LOCAL_DATABASE: process.env.DYNAMODB_LOCAL_DATABASE!,
      TABLE_NAME: tableName,
      TOKEN_HASH_SECRET: secret,
    };
    proxy = conflictingDynamoDb(process.env.DYNAMODB_ENDPOINT!);
    proxied = await listen(proxy);
  }, 60_000);

  afterAll(() => new Promise((resolve) => proxy.close(resolve)));

  it('answers a transaction that keeps conflicting with 503 storage_unavailable problem+json', async () => {
    const env = { ...services, DYNAMODB_ENDPOINT: proxied };
    const path = `/api/v1/organisations/${operator.organisationId}`;
    const read = await loadBundle<APIGatewayProxyResult>('organisations', env, event('GET', path, { token: operator.org }));
    const etag = String(read.result?.headers?.ETag);
    const { result } = await loadBundle<APIGatewayProxyResult>(
      'organisations',
      env,
      event('PATCH', path, { token: operator.org, headers: { 'If-Match': etag }, body: { notes: 'conflicting' } }),
    );
    expect(result?.statusCode).toBe(503);
    expect(result?.headers?.['Content-Type']).toBe('application/problem+json');
    expect(result?.headers?.['X-Request-ID']).toEqual(expect.any(String));
    expect(JSON.parse(result!.body)).toMatchObject({ status: 503, code: 'storage_unavailable' });
  }, 30_000);

  it('answers 503 storage_unavailable with a request id when DynamoDB is unreachable', async () => {
    const env = { ...services, DYNAMODB_ENDPOINT: await closedEndpoint() };
    const { result } = await loadBundle<APIGatewayProxyResult>(
      'organisations',
      env,
      event('GET', `/api/v1/organisations/${operator.organisationId}`, { token: operator.org }),
    );
    expect(result?.statusCode).toBe(503);
    expect(result?.headers?.['Content-Type']).toBe('application/problem+json');
    expect(result?.headers?.['X-Request-ID']).toEqual(expect.any(String));
    expect(JSON.parse(result!.body)).toMatchObject({ status: 503, code: 'storage_unavailable' });
  }, 30_000);
});

/** The event Lambda hands the scan worker for one message of its queue. */
function scanEvent(message: { MessageId: string; ReceiptHandle: string; Body: string }): SQSEvent {
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

/**
 * A function runs without --enable-source-maps (infra/app-function.ts): the logger maps the stack
 * of an unexpected error to the sources, from the maps beside the minified chunks.
 */
describe('unexpected errors logged by a bundled function', () => {
  it('names the source file and line of each bundled frame, not the minified chunk', async () => {
    const event = scanEvent({ MessageId: 'unreadable', ReceiptHandle: 'handle', Body: 'not a job message' });
    const { result, logs } = await loadBundle<SQSBatchResponse>('scan', { TABLE_NAME: 'unused', BUCKET_NAME: 'unused' }, event);
    expect(result?.batchItemFailures).toEqual([{ itemIdentifier: 'unreadable' }]);
    const failure = logs
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { message: string; error?: { location: string; stack: string } })
      .find((entry) => entry.message === 'job failed');
    // The worker parses the message body itself, so the first frame with a position is in lib/jobs/worker.ts.
    expect(failure?.error?.location).toMatch(/^lib\/jobs\/worker\.ts:\d+$/);
    expect(failure?.error?.stack).not.toMatch(/\.mjs:\d+/);
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
      DYNAMODB_LOCAL_DATABASE: process.env.DYNAMODB_LOCAL_DATABASE!,
      S3_ENDPOINT: process.env.S3_ENDPOINT!,
      TABLE_NAME: process.env.TABLE_NAME!,
      BUCKET_NAME: process.env.BUCKET_NAME!,
      MALWARE_SCANNER: 'guardduty',
    };
  }, 60_000);

  afterAll(() => api.stop());

  async function queuedScan(): Promise<SQSEvent> {
    // The committed upload queues its scan through the table's stream.
    await api.dispatchJobs();
    const received = await sqs().send(new ReceiveMessageCommand({ QueueUrl: queueUrl('scan'), MaxNumberOfMessages: 1, WaitTimeSeconds: 1 }));
    const message = received.Messages?.[0];
    if (!message?.Body || !message.MessageId || !message.ReceiptHandle) throw new Error('no scan job was queued');
    return scanEvent({ MessageId: message.MessageId, ReceiptHandle: message.ReceiptHandle, Body: message.Body });
  }

  const scanResult = (objectKey: string, scanResultStatus: string) => ({
    version: '0',
    id: newUlid(),
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
    expect(
      (await api.request('POST', path, { token: op.org, form: form(image, 'logo.png'), headers: { 'Idempotency-Key': newUlid(), 'If-Match': etag } })).status,
    ).toBe(201);

    const job = await queuedScan();
    const scanned = await loadBundle<SQSBatchResponse>('scan', env, job);
    expect(scanned).toMatchObject({ handlerType: 'function', result: { batchItemFailures: [] } });
    expect((await read()).body.data).toMatchObject({ status: 'quarantine' });

    const uploadId = (JSON.parse(job.Records[0]!.body) as { upload_id: string }).upload_id;
    const verdict = await loadBundle<unknown>('verdict', env, scanResult(`quarantine/${uploadId}`, 'NO_THREATS_FOUND'));
    expect(verdict.handlerType).toBe('function');
    expect((await read()).body.data).toMatchObject({ status: 'ready', content_type: 'image/png', width: 64, height: 32 });
    expect((await api.request('GET', `${path}/file`, { token: op.org })).bytes.equals(image)).toBe(true);
  }, 60_000);
});
