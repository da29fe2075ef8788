import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { OPERATIONS } from '../lib/operations/registry.js';
import { createRouter } from '../lib/operations/kernel/router.js';
import { traceDdb, type DdbCall } from '../lib/store/client.js';

/** The DynamoDB requests one API request made, under the label of its operation and phase. */
export interface RequestTrace {
  label: string;
  recorded: boolean;
  status: number;
  calls: DdbCall[];
  startedAt: number;
  finishedAt: number;
}

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Wraps the local server's request listener in traceDdb: the trace lives in AsyncLocalStorage,
 * so only DynamoDB calls made while handling the request itself are attributed to it.
 */
export class TraceRecorder {
  private readonly router = createRouter(OPERATIONS);
  private readonly pending = new Set<Promise<void>>();
  readonly traces: RequestTrace[] = [];
  /** Appended to the operation id of each request; undefined while warming up (nothing is kept). */
  phase: string | undefined;

  install(server: Server): void {
    const originals = server.listeners('request') as RequestListener[];
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.handle(server, originals, req, res));
  }

  /** Resolves when every traced request has been written down. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  operationOf(method: string, url: string): string {
    const match = this.router.match(method, new URL(url, 'http://localhost').pathname);
    return match.kind === 'found' ? match.operation.id : `unrouted ${method}`;
  }

  private handle(server: Server, originals: RequestListener[], req: IncomingMessage, res: ServerResponse): void {
    // The phase is read on arrival: a phase ends only after all its responses have been received.
    const recorded = this.phase !== undefined;
    const label = this.operationOf(req.method ?? 'GET', req.url ?? '/') + (this.phase ?? '');
    const startedAt = performance.now();
    let finishedAt = 0;
    const traced = traceDdb(
      () =>
        new Promise<void>((resolve) => {
          const done = () => {
            finishedAt ||= performance.now();
            resolve();
          };
          res.once('finish', done);
          res.once('close', done);
          for (const listener of originals) listener.call(server, req, res);
        }),
    );
    const written: Promise<void> = traced
      .then(({ calls }) => {
        // The array itself is kept: calls a handler leaves running after the response still land in it.
        this.traces.push({ label, recorded, status: res.statusCode, calls, startedAt, finishedAt });
      })
      .finally(() => this.pending.delete(written));
    this.pending.add(written);
  }
}
