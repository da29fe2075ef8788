import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import git from 'isomorphic-git';

/**
 * A stand-in for GitHub's REST API on 127.0.0.1, as much of it as the github provider uses: a
 * commit by ref (sha media type; 422 for a ref that names none), a contents entry at a commit (a
 * list for a directory, base64 inline up to 1 MB, encoding "none" above) and a raw blob. A test
 * may answer any request itself (`intercept`): rate limits, outages, slow or malformed answers.
 */
export interface StubRequest {
  path: string;
  headers: IncomingHttpHeaders;
}

/** A commit: its files by path. */
export type StubCommit = Record<string, Buffer>;

export type Interceptor = (request: StubRequest, response: ServerResponse) => boolean;

export interface GitHubStub {
  apiUrl: string;
  requests: StubRequest[];
  /** Refs (branches, tags, full ids) to commit ids, and each commit's files. */
  refs: Map<string, string>;
  commits: Map<string, StubCommit>;
  intercept(handler: Interceptor | undefined): void;
  close(): Promise<void>;
}

export const OWNER_REPO = '/repos/acme/widgets';
const INLINE_LIMIT = 1024 * 1024;

const json = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
};

/** Base64 with a line break every 60 characters, as GitHub sends it. */
const wrapped = (bytes: Buffer) => bytes.toString('base64').replace(/.{60}/g, '$&\n');

export async function startGitHubStub(): Promise<GitHubStub> {
  const refs = new Map<string, string>();
  const commits = new Map<string, StubCommit>();
  const requests: StubRequest[] = [];
  let interceptor: Interceptor | undefined;

  async function answer(path: string, query: URLSearchParams, response: ServerResponse) {
    const commitMatch = /^\/commits\/(.+)$/.exec(path);
    if (commitMatch) {
      const sha = refs.get(decodeURIComponent(commitMatch[1]!));
      if (!sha) return json(response, 422, { message: `No commit found for SHA: ${commitMatch[1]}`, status: '422' });
      response.writeHead(200, { 'content-type': 'application/vnd.github.sha; charset=utf-8' });
      return response.end(sha);
    }
    const contentsMatch = /^\/contents\/(.+)$/.exec(path);
    if (contentsMatch) {
      const files = commits.get(query.get('ref') ?? '');
      const wanted = contentsMatch[1]!.split('/').map(decodeURIComponent).join('/');
      const bytes = files?.[wanted];
      if (bytes) {
        const { oid } = await git.hashBlob({ object: bytes });
        const inline = bytes.length <= INLINE_LIMIT;
        return json(response, 200, {
          type: 'file',
          name: wanted.split('/').at(-1),
          path: wanted,
          size: bytes.length,
          sha: oid,
          encoding: inline ? 'base64' : 'none',
          content: inline ? wrapped(bytes) : '',
        });
      }
      const below = Object.keys(files ?? {}).filter((p) => p.startsWith(`${wanted}/`));
      if (below.length > 0)
        return json(
          response,
          200,
          below.map((p) => ({ type: 'file', path: p })),
        );
      return json(response, 404, { message: 'Not Found', status: '404' });
    }
    const blobMatch = /^\/git\/blobs\/([0-9a-f]{40})$/.exec(path);
    if (blobMatch) {
      for (const files of commits.values())
        for (const bytes of Object.values(files)) {
          if ((await git.hashBlob({ object: bytes })).oid !== blobMatch[1]) continue;
          response.writeHead(200, { 'content-type': 'application/vnd.github.raw+json' });
          return response.end(bytes);
        }
    }
    return json(response, 404, { message: 'Not Found', status: '404' });
  }

  const server: Server = createServer((req, response) => {
    const url = new URL(req.url ?? '/', 'http://stub');
    const request = { path: url.pathname + url.search, headers: req.headers };
    requests.push(request);
    if (interceptor?.(request, response)) return;
    if (!url.pathname.startsWith(`${OWNER_REPO}/`)) return json(response, 404, { message: 'Not Found' });
    answer(url.pathname.slice(OWNER_REPO.length), url.searchParams, response).catch(() => json(response, 500, { message: 'stub failure' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    apiUrl: `http://127.0.0.1:${port}`,
    requests,
    refs,
    commits,
    intercept: (handler) => {
      interceptor = handler;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
