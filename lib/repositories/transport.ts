import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import { addressRefusal, guardedLookup } from './addresses.js';
import { RepositoryAddressRefusedError } from './errors.js';

/**
 * GET for the remote providers, on agents of their own whose sockets connect only where
 * ./addresses.ts allows. A name is checked as each new connection resolves it, and the socket goes
 * to the very address checked, so a DNS answer that changed since `repository connect` is refused
 * too. Node's fetch offers no such hook without the undici package, hence node:http(s). Redirects
 * are never followed: a moved repository is connected again by the operator.
 */
const AGENTS = {
  http: new http.Agent({ keepAlive: true, lookup: guardedLookup }),
  https: new https.Agent({ keepAlive: true, lookup: guardedLookup }),
};

export interface Answer {
  status: number;
  header(name: string): string | undefined;
  body: Readable;
}

export function get(url: string, headers: Record<string, string>, signal: AbortSignal): Promise<Answer> {
  const target = new URL(url);
  const literal = target.hostname.replace(/^\[(.*)\]$/, '$1');
  // A socket connects to an address literal without a lookup, so the literal is checked here.
  const refusal = isIP(literal) ? addressRefusal(literal) : undefined;
  if (refusal) return Promise.reject(new RepositoryAddressRefusedError(`the repository host ${refusal}`));
  return send(target, headers, signal);
}

/**
 * A server closes a connection that sat idle in the pool when its own keep-alive runs out, and a
 * request sent on it just then is hung up on before any answer. A GET is safe to send again, so one
 * that failed so on a reused connection goes again; each try takes the pooled connection out, so the
 * tries end on a new connection, whose failure is the answer.
 */
function send(target: URL, headers: Record<string, string>, signal: AbortSignal): Promise<Answer> {
  const secure = target.protocol === 'https:';
  return new Promise((resolve, reject) => {
    const request = (secure ? https : http).request(target, { agent: secure ? AGENTS.https : AGENTS.http, headers, signal }, (response) =>
      resolve({
        status: response.statusCode ?? 0,
        header: (name) => {
          const value = response.headers[name.toLowerCase()];
          return Array.isArray(value) ? value.join(', ') : value;
        },
        body: response,
      }),
    );
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (request.reusedSocket && error.code === 'ECONNRESET') resolve(send(target, headers, signal));
      else reject(error);
    });
    request.end();
  });
}
