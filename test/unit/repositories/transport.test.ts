import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
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

  describe('a connection the server closed while it sat idle in the pool', () => {
    let closing: Server;
    let closingPort: number;
    let connections = 0;
    /** Requests each socket has carried; the server hangs up on a socket's second request, as one whose keep-alive ran out does. */
    let carried = new WeakMap<Socket, number>();
    let hangUpOnFirst = false;
    beforeAll(async () => {
      closing = createServer((request, response) => {
        const count = (carried.get(request.socket) ?? 0) + 1;
        carried.set(request.socket, count);
        if (count > 1 || hangUpOnFirst) request.socket.destroy();
        else response.writeHead(200, { 'Content-Type': 'text/plain' }).end('content');
      });
      closing.on('connection', () => connections++);
      await new Promise<void>((resolve) => closing.listen(0, '127.0.0.1', resolve));
      closingPort = (closing.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((resolve) => closing.close(() => resolve())));
    afterEach(() => {
      connections = 0;
      carried = new WeakMap();
      hangUpOnFirst = false;
      closing.closeAllConnections();
    });

    it('sends the request again on a new connection', async () => {
      allowLoopback();
      await text((await get(`http://127.0.0.1:${closingPort}/first`, {}, AbortSignal.timeout(5_000))).body);
      const answer = await get(`http://127.0.0.1:${closingPort}/second`, {}, AbortSignal.timeout(5_000));
      expect([answer.status, await text(answer.body), connections]).toEqual([200, 'content', 2]);
    });

    it('fails, without sending again, when a new connection is hung up on', async () => {
      allowLoopback();
      hangUpOnFirst = true;
      await expect(get(`http://127.0.0.1:${closingPort}/file`, {}, AbortSignal.timeout(5_000))).rejects.toMatchObject({ code: 'ECONNRESET' });
      expect(connections).toBe(1);
    });
  });
});
