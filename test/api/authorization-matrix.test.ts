import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import { satisfies } from '../../lib/auth/authority.js';
import { CREDENTIAL_TYPES, dependenciesOf, permissionsOf, type CredentialType, type Permission } from '../../lib/domain/permissions.js';
import type { AnyOperation } from '../../lib/operations/kernel/operation.js';
import { OPERATIONS } from '../../lib/operations/registry.js';
import { fixtures, startApi, type Api } from '../support/api.js';

/**
 * Every operation x every credential type x with and without each required permission (selected
 * on the token, or held live by the actor) x read-only and mutation-enabled, derived from the
 * registry. "Authorized" means the pipeline let the request through to validation or the handler:
 * anything but 401 and 403.
 */
type Variant =
  | { kind: 'full'; readOnly: boolean }
  | { kind: 'selected-without'; permission: Permission }
  | { kind: 'live-without'; permission: Permission }
  | { kind: 'other-boundary' };

interface Case {
  op: AnyOperation;
  type: CredentialType;
  variant: Variant;
  expected: 'authorized' | 401 | 403 | 404;
}

/** The permission and everything that (transitively) depends on it: removing one removes the rest. */
function withoutPermission(type: CredentialType, removed: Permission): Permission[] {
  const gone = new Set<Permission>([removed]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of permissionsOf(type)) {
      if (!gone.has(p) && dependenciesOf(type, p).some((d) => gone.has(d))) {
        gone.add(p);
        grew = true;
      }
    }
  }
  return permissionsOf(type).filter((p) => !gone.has(p));
}

function casesFor(op: AnyOperation): Case[] {
  const cases: Case[] = [];
  for (const type of CREDENTIAL_TYPES) {
    if (!op.credential.includes(type)) {
      cases.push({ op, type, variant: { kind: 'full', readOnly: false }, expected: 401 });
      continue;
    }
    const rule = op.permission[type] ?? [];
    cases.push({ op, type, variant: { kind: 'full', readOnly: false }, expected: 'authorized' });
    cases.push({ op, type, variant: { kind: 'full', readOnly: true }, expected: op.mode === 'mutation' ? 403 : 'authorized' });
    for (const permission of new Set(rule.flat())) {
      const remaining = new Set(withoutPermission(type, permission));
      const expected = satisfies(rule, remaining) ? 'authorized' : 403;
      // A credential must select at least one permission, so "selected without" exists only when something is left.
      if (remaining.size > 0) cases.push({ op, type, variant: { kind: 'selected-without', permission }, expected });
      cases.push({ op, type, variant: { kind: 'live-without', permission }, expected });
    }
    const bound = type === 'organisation' ? 'organisation' : type === 'project' ? 'project' : undefined;
    if (bound && op.path.includes(`{${bound}}`)) cases.push({ op, type, variant: { kind: 'other-boundary' }, expected: 404 });
  }
  return cases;
}

const CASES = OPERATIONS.flatMap(casesFor);
const label = (c: Case) =>
  c.variant.kind === 'full'
    ? `${c.variant.readOnly ? 'read-only' : 'mutation-enabled'}, every permission`
    : c.variant.kind === 'other-boundary'
      ? 'another boundary'
      : `${c.variant.kind} ${c.variant.permission}`;

let api: Api;

beforeAll(async () => {
  const high = '1000000';
  // Only the answer's status matters here: a job an authorized request queues need not run.
  api = await startApi(
    {
      API_INGRESS_RATE_LIMIT_PER_MINUTE: high,
      API_READ_RATE_LIMIT_PER_MINUTE: high,
      API_ACTOR_READ_RATE_LIMIT_PER_MINUTE: high,
      API_ORGANISATION_READ_RATE_LIMIT_PER_MINUTE: high,
      API_MUTATION_RATE_LIMIT_PER_MINUTE: high,
      API_ACTOR_MUTATION_RATE_LIMIT_PER_MINUTE: high,
      API_ORGANISATION_MUTATION_RATE_LIMIT_PER_MINUTE: high,
      ORGANISATION_LICENCE_LIMIT: high,
    },
    { jobs: 'manual' },
  );
});
afterAll(() => api.stop());

/** An actor whose organisation and project are the request's targets, and a token of the case's type. */
async function arrangeFresh(c: Case) {
  const userId = await fixtures.user();
  const organisationId = await fixtures.organisation(userId);
  const projectId = await fixtures.project(organisationId);
  const scope =
    c.type === 'administration'
      ? ({ kind: 'installation' } as const)
      : c.type === 'organisation'
        ? ({ kind: 'organisation', id: organisationId } as const)
        : ({ kind: 'project', id: projectId } as const);
  const all = permissionsOf(c.type);
  await fixtures.grant(userId, scope, all);
  const v = c.variant;
  const token = await fixtures.token(userId, c.type, {
    organisationId: c.type === 'organisation' ? organisationId : undefined,
    projectId: c.type === 'project' ? projectId : undefined,
    abilities: v.kind === 'selected-without' ? withoutPermission(c.type, v.permission) : all,
    readOnly: v.kind === 'full' && v.readOnly,
  });
  if (v.kind === 'live-without') await fixtures.grant(userId, scope, withoutPermission(c.type, v.permission));
  const targets: Record<string, string> =
    v.kind === 'other-boundary' ? { organisation: newUlid(), project: newUlid() } : { organisation: organisationId, project: projectId };
  return { token, targets };
}

const shared = new Map<string, ReturnType<typeof arrangeFresh>>();

/**
 * Whether validation refuses the case's empty JSON body, by the operation's own schema: validation
 * runs before the handler, so the request, authorized or not, changes nothing.
 */
const bodyRefused = (op: AnyOperation) => op.body !== undefined && op.body.mediaType !== 'multipart/form-data' && !op.body.schema.safeParse({}).success;

/**
 * The arrangement depends on the credential type and the variant only. A request that is refused
 * (by authorization or by validation), or that only reads, changes nothing of it, so such cases
 * share one arrangement per type and variant; any other mutation the case expects to go through
 * gets an actor, organisation and project of its own, whatever it changes.
 */
function arrange(c: Case) {
  if (c.expected === 'authorized' && c.op.mode === 'mutation' && !bodyRefused(c.op)) return arrangeFresh(c);
  const key = `${c.type}, ${label(c)}`;
  let arrangement = shared.get(key);
  if (!arrangement) shared.set(key, (arrangement = arrangeFresh(c)));
  return arrangement;
}

describe('authorization matrix', () => {
  it('covers every operation of the registry', () => {
    expect(new Set(CASES.map((c) => c.op.id))).toEqual(new Set(OPERATIONS.map((o) => o.id)));
  });

  // Each case waits on the emulator most of its time: a few run side by side.
  it.concurrent.for(CASES.map((c) => [`${c.op.id} with a ${c.type} credential, ${label(c)}`, c] as const))('%s', async ([_name, c], { expect }) => {
    const { token, targets } = await arrange(c);
    const path = `/api/v1${c.op.path.replace(/\{(\w+)\}/g, (_m, name: string) => targets[name] ?? newUlid())}`;
    const headers: Record<string, string> = {};
    if (c.op.ifMatch) headers['If-Match'] = '"1-00000000000000000000"';
    if (c.op.idempotencyKey) headers['Idempotency-Key'] = newUlid();
    const res = await api.request(c.op.method, path, {
      token,
      headers,
      ...(c.op.body ? { body: {}, contentType: c.op.body.mediaType } : {}),
    });
    if (c.expected === 'authorized') expect([401, 403]).not.toContain(res.status);
    else expect(res.status).toBe(c.expected);
  });
});
