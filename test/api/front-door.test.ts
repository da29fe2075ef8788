import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { isValid as isUlid } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtures, startApi, type Api } from '../support/api.js';

let api: Api;
let op: Awaited<ReturnType<typeof fixtures.operator>>;

beforeAll(async () => {
  api = await startApi();
  op = await fixtures.operator();
});
afterAll(() => api.stop());

interface Raw {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** node:http rather than fetch: it sends headers of any size and reports HEAD's headers as sent. */
function raw(method: string, path: string, headers: Record<string, string> = {}, body?: Buffer): Promise<Raw> {
  return new Promise((res, rej) => {
    const req = httpRequest(`${api.base}${path}`, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (c: Buffer) => chunks.push(c));
      response.on('end', () => res({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', rej);
    req.end(body);
  });
}

/** Bytes straight onto a socket: requests no HTTP client would send. */
function onSocket(bytes: string): Promise<string> {
  const { port } = new URL(api.base);
  return new Promise((res, rej) => {
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => (answer += d.toString('latin1')));
    socket.on('close', () => res(answer));
    socket.on('error', rej);
    socket.write(bytes);
  });
}

function expectProblem(r: Raw, status: number, code: string): void {
  expect(r.status).toBe(status);
  expect(r.headers['content-type']).toBe('application/problem+json');
  const requestId = r.headers['x-request-id'] as string;
  expect(isUlid(requestId)).toBe(true);
  const body = JSON.parse(r.body.toString('utf8'));
  expect(body).toMatchObject({
    status,
    code,
    request_id: requestId,
    type: expect.stringMatching(/^https:\/\//),
    title: expect.any(String),
    detail: expect.any(String),
    instance: expect.any(String),
  });
  expect(Number(r.headers['content-length'])).toBe(r.body.length);
}

/** Splits a raw HTTP/1.1 answer into the shape node:http gives. */
function parseRaw(answer: string): Raw {
  const [head, ...rest] = answer.split('\r\n\r\n');
  const [statusLine, ...lines] = head!.split('\r\n');
  const headers: IncomingHttpHeaders = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
  }
  return { status: Number(statusLine!.split(' ')[1]), headers, body: Buffer.from(rest.join('\r\n\r\n'), 'latin1') };
}

describe('the local front door answers problems of its own', () => {
  it('answers a body over 10 MB with 413 problem+json and a request id', async () => {
    const r = await raw('POST', '/api/v1/organisations', { 'Content-Type': 'application/json' }, Buffer.alloc(10 * 1024 * 1024 + 1, 0x20));
    expectProblem(r, 413, 'payload_too_large');
    expect(JSON.parse(r.body.toString('utf8')).instance).toBe('/api/v1/organisations');
  });

  it('answers oversized headers with 431 problem+json and a request id, not Node bare answer', async () => {
    const r = await raw('GET', '/api/v1/organisations', { 'X-Padding': 'x'.repeat(20_000) });
    expectProblem(r, 431, 'request_header_fields_too_large');
    expect(JSON.parse(r.body.toString('utf8')).instance).toBe('/api/v1/organisations');
  });

  it('answers a request that is not HTTP with 400 problem+json and a request id', async () => {
    const r = parseRaw(await onSocket('NOT HTTP AT ALL\r\n\r\n'));
    expectProblem(r, 400, 'malformed_request');
  });

  it('answers a target that is no URL path, such as //, with a 404 problem', async () => {
    expectProblem(await raw('GET', '//'), 404, 'not_found');
  });
});

describe('HEAD on a GET resource', () => {
  it('answers like GET (status, ETag, Content-Type, Content-Length) without a body', async () => {
    const headers = { Authorization: `Bearer ${op.org}` };
    const path = `/api/v1/organisations/${op.organisationId}`;
    const get = await raw('GET', path, headers);
    const head = await raw('HEAD', path, headers);
    expect(get.status).toBe(200);
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers.etag).toBe(get.headers.etag);
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
    expect(head.headers['content-length']).toBe(String(get.body.length));
    expect(isUlid(head.headers['x-request-id'] as string)).toBe(true);
  });

  it('answers a refused HEAD like the refused GET, as problem headers without a body', async () => {
    const head = await raw('HEAD', `/api/v1/organisations/${op.organisationId}`);
    expect(head.status).toBe(401);
    expect(head.headers['content-type']).toBe('application/problem+json');
    expect(isUlid(head.headers['x-request-id'] as string)).toBe(true);
    expect(head.body.length).toBe(0);
  });
});
