import { ulid } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { permissionsOf, type CredentialType } from '../../lib/domain/permissions.js';
import type { AnyOperation } from '../../lib/operations/kernel/operation.js';
import { OPERATIONS } from '../../lib/operations/registry.js';
import { fixtures, startApi, type Api } from '../support/api.js';
import { GENEROUS_BUDGETS } from '../support/projects.js';

let api: Api;
let organisationId: string;
let projectId: string;
let tokens: Record<CredentialType, string>;

beforeAll(async () => {
  api = await startApi(GENEROUS_BUDGETS);
  const operator = await fixtures.operator();
  organisationId = operator.organisationId;
  projectId = await fixtures.project(organisationId);
  await fixtures.grant(operator.userId, { kind: 'project', id: projectId }, permissionsOf('project'));
  const project = await fixtures.token(operator.userId, 'project', { projectId });
  tokens = { administration: operator.admin, organisation: operator.org, project };
});
afterAll(() => api.stop());

/**
 * Validation runs before any handler reads the resource, so a fresh ULID reaches the body check;
 * only the credential's own organisation or project gets past the boundary's 404.
 */
function pathOf(op: AnyOperation): string {
  const own: Record<string, string> = { organisation: organisationId, project: projectId };
  return `/api/v1${op.path.replace(/\{(\w+)\}/g, (_, name: string) => own[name] ?? ulid())}`;
}

const jsonBodied = OPERATIONS.filter((op) => op.body && op.body.mediaType !== 'multipart/form-data');

describe('a request body that is not JSON', () => {
  it.each(jsonBodied.map((op) => [op.id, op] as const))('answers %s with its declared 400 malformed_json', async (_id, op) => {
    const res = await api.request(op.method, pathOf(op), { token: tokens[op.credential[0]!], rawBody: '{', headers: { 'Content-Type': op.body!.mediaType } });
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'malformed_json' });
  });
});
