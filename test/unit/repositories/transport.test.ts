import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { resetSettings } from '../../../lib/config.js';
import { RepositoryAddressRefusedError } from '../../../lib/repositories/errors.js';
import { get } from '../../../lib/repositories/transport.js';

let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/moved') {
      response.writeHead(301, { Location: 'http://127.0.0.1/elsewhere' }).end();
      return;
    }
    response.writeHead(200, { 'Content-Type': 'text/plain', 'X-Echo': String(request.headers['x-probe'] ?? '') }).end('content');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
afterEach(() => {
  vi.unstubAllEnvs();
  resetSettings();
});

const allowLoopback = () => {
  vi.stubEnv('TEST_ONLY_ALLOWED_REPOSITORY_ADDRESSES', '127.0.0.1');
  resetSettings();
};
const text = async (body: NodeJS.ReadableStream) => {
  let out = '';
  for await (const chunk of body) out += chunk;
  return out;
};

describe('get', () => {
  it('refuses an address literal that ./addresses.ts refuses, before connecting', async () => {
    await expect(get(`http://127.0.0.1:${port}/file`, {}, AbortSignal.timeout(5_000))).rejects.toThrow(RepositoryAddressRefusedError);
  });

  it('refuses a bracketed IPv6 literal the same way', async () => {
    await expect(get('http://[::1]/file', {}, AbortSignal.timeout(5_000))).rejects.toThrow(RepositoryAddressRefusedError);
  });

  it('answers the status, headers and body of an allowed address, sending the headers given', async () => {
    allowLoopback();
    const answer = await get(`http://127.0.0.1:${port}/file`, { 'X-Probe': 'yes' }, AbortSignal.timeout(5_000));
    expect([answer.status, answer.header('x-echo'), answer.header('Content-Type'), await text(answer.body)]).toEqual([200, 'yes', 'text/plain', 'content']);
  });

  it('does not follow a redirect', async () => {
    allowLoopback();
    const answer = await get(`http://127.0.0.1:${port}/moved`, {}, AbortSignal.timeout(5_000));
    expect([answer.status, answer.header('location')]).toEqual([301, 'http://127.0.0.1/elsewhere']);
  });
});
