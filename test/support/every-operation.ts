import { newUlid } from '../../lib/domain/ids.js';
import { permissionsOf, type CredentialType } from '../../lib/domain/permissions.js';
import type { AnyOperation } from '../../lib/operations/kernel/operation.js';
import { fixtures, startApi } from './api.js';
import { GENEROUS_BUDGETS } from './projects.js';

/**
 * An API for requests to every operation: an operator with tokens of each type, bound to its own
 * organisation and a project of it, and budgets no sweep of the registry reaches.
 */
export async function startForEveryOperation() {
  // The sweeps look at answers only: a job a request queues need not run.
  const api = await startApi({ ...GENEROUS_BUDGETS, API_INGRESS_RATE_LIMIT_PER_MINUTE: '100000' }, { jobs: 'manual' });
  const operator = await fixtures.operator();
  const projectId = await fixtures.project(operator.organisationId);
  await fixtures.grant(operator.userId, { kind: 'project', id: projectId }, permissionsOf('project'));
  const tokens: Record<CredentialType, string> = {
    administration: operator.admin,
    organisation: operator.org,
    project: await fixtures.token(operator.userId, 'project', { projectId }),
  };
  /** The credential's own organisation or project, the one path parameter its boundary checks before validation. */
  const own: Record<string, string> = { organisation: operator.organisationId, project: projectId };
  return {
    api,
    /** The operation's first credential type. */
    tokenOf: (op: AnyOperation) => tokens[op.credential[0]!],
    /** The parameter the boundary compares with the credential's binding (a wrong one is 404 before any validation). */
    boundParameter: (op: AnyOperation) => ({ organisation: 'organisation', project: 'project', administration: undefined })[op.credential[0]!],
    /**
     * The operation's path with `values` in place, its own organisation or project elsewhere, and
     * fresh ULIDs for the rest: validation runs before any handler reads a resource, so a fresh ULID
     * reaches the checks.
     */
    pathOf: (op: AnyOperation, values: Record<string, string> = {}) =>
      `/api/v1${op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? own[name] ?? newUlid()))}`,
  };
}
