import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { issueToken } from '../../lib/auth/issue.js';
import { permissionsOf, type CredentialType, type Permission } from '../../lib/domain/permissions.js';
import { createLocalServer } from '../../lib/local/server.js';
import { startPollers } from '../../lib/jobs/local.js';
import { grantAccess, type AccessScope } from '../../lib/store/identity.js';
import type { StoredProject } from '../../lib/domain/projects.js';
import { createOrganisation, createProject, createSystem, createUser } from './factories.js';
import { assertMatchesOpenApi } from './openapi.js';
import { useTestServices } from './services.js';

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: any;
  bytes: Buffer;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  rawBody?: string;
  form?: FormData;
  contentType?: string;
  headers?: Record<string, string>;
}

/** Real HTTP against the local runtime's server, every answer checked against the OpenAPI document. */
export async function startApi(overrides: Record<string, string> = {}, options: { jobs?: 'background' | 'manual' } = {}) {
  await useTestServices(overrides);
  const server: Server = await createLocalServer();
  // The test's fetch and this server share one event loop: when a test holds the loop longer than the
  // server's keep-alive timeout (compiling the OSCAL schemas under coverage on a busy machine), the
  // server's idle timer fires after fetch has written its next request on that connection and before
  // the server reads it, and the request fails with ECONNRESET. Only the client closes idle connections,
  // and it never closes one it is sending on; close() still ends them at the file's end.
  server.keepAliveTimeout = 0;
  const pollers = await startPollers({ manual: options.jobs === 'manual' });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', () => res()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  async function request(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.Authorization = `Bearer ${options.token}`;
    let body: string | FormData | undefined = options.form ?? options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['Content-Type'] ??= options.contentType ?? (method === 'PATCH' ? 'application/merge-patch+json' : 'application/json');
    }
    const res = await fetch(base + path, { method, headers, body });
    const bytes = Buffer.from(await res.arrayBuffer());
    const contentType = res.headers.get('content-type') ?? '';
    const parsed = /json/.test(contentType) && bytes.length ? JSON.parse(bytes.toString('utf8')) : undefined;
    assertMatchesOpenApi(method, new URL(base + path).pathname, res.status, contentType, parsed);
    return { status: res.status, headers: res.headers, body: parsed, bytes };
  }

  return {
    base,
    request,
    /** Runs queued jobs until the queues are empty (with jobs: 'manual', nothing else runs them). */
    drainJobs: () => pollers.drain(),
    /** Sends the jobs the committed job records ask for to their queues, without running them. */
    dispatchJobs: () => pollers.dispatch(),
    stop: async () => {
      await pollers.stop();
      await new Promise<void>((res) => server.close(() => res()));
    },
  };
}

export type Api = Awaited<ReturnType<typeof startApi>>;

/** Fixtures by id, written through the factories (the same store writes the operations and the operator CLI use). */
export const fixtures = {
  async user(options: { superUser?: boolean } = {}): Promise<string> {
    return createUser(options);
  },
  async grant(userId: string, scope: AccessScope, permissions: readonly Permission[]): Promise<void> {
    await grantAccess(userId, scope, [...permissions], new Date());
  },
  async organisation(createdBy: string, name?: string): Promise<string> {
    return (await createOrganisation({ created_by: createdBy, ...(name === undefined ? {} : { name }) })).id;
  },
  async system(organisationId: string): Promise<string> {
    return (await createSystem({ organisation_id: organisationId })).id;
  },
  /** A project as stored, in a new system unless one is given (API tests of setup create theirs through the API). */
  async project(organisationId: string, options: Partial<StoredProject> = {}): Promise<string> {
    return (await createProject({ ...options, organisation_id: organisationId })).id;
  },
  async token(
    userId: string,
    type: CredentialType,
    options: { organisationId?: string; projectId?: string; abilities?: readonly string[]; readOnly?: boolean; expiresAt?: string } = {},
  ): Promise<string> {
    const issued = await issueToken(
      userId,
      {
        token_type: type,
        organisation_id: options.organisationId,
        project_id: options.projectId,
        name: 'test token',
        abilities: [...(options.abilities ?? permissionsOf(type))],
        read_only: options.readOnly ?? false,
        expires_at: options.expiresAt,
      },
      new Date(),
    );
    return issued.token;
  },
  /** An actor with every permission live at the installation and in one organisation, and tokens for both. */
  async operator() {
    const userId = await fixtures.user();
    await fixtures.grant(userId, { kind: 'installation' }, permissionsOf('administration'));
    const organisationId = await fixtures.organisation(userId);
    await fixtures.grant(userId, { kind: 'organisation', id: organisationId }, permissionsOf('organisation'));
    return {
      userId,
      organisationId,
      admin: await fixtures.token(userId, 'administration'),
      org: await fixtures.token(userId, 'organisation', { organisationId }),
    };
  },
};
