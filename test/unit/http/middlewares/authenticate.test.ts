import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { newUlid } from '../../../../lib/domain/ids.js';
import { hashToken, mintToken, parseToken } from '../../../../lib/auth/tokens.js';
import { authenticate } from '../../../../lib/http/middlewares/authenticate.js';
import { confirmLive, expectLive } from '../../../../lib/http/live-credentials.js';
import { resetDdbClient } from '../../../../lib/store/client.js';
import { getOrganisation } from '../../../../lib/operations/organisations/organisations.js';
import type { AnyOperation } from '../../../../lib/operations/kernel/operation.js';
import { StoredItemInvalid } from '../../../../lib/store/entity.js';
import { keys } from '../../../../lib/store/keys.js';
import { keyString, type Item } from '../../../../lib/store/read.js';
import { pipelineRequest, thrownBy, useTokenHashSecret } from '../../../support/pipeline.js';
import { buildToken, buildUser } from '../../../support/factories.js';

const SECRET = 's'.repeat(48);
const ddb = mockClient(DynamoDBDocumentClient);
useTokenHashSecret(SECRET);
beforeEach(() => {
  ddb.reset();
  resetDdbClient();
  ddb.on(UpdateCommand).resolves({ Attributes: { count: 1 } });
});

const countersTouched = () =>
  ddb
    .commandCalls(UpdateCommand)
    .filter((c) => String(c.args[0].input.Key!.PK).startsWith('RATE#'))
    .map((c) => [String(c.args[0].input.Key!.PK).split('#')[1], c.args[0].input.ExpressionAttributeValues![':d']]);
const lastUseWrites = () => ddb.commandCalls(UpdateCommand).filter((c) => String(c.args[0].input.Key!.PK).startsWith('TOKEN#'));

const userId = newUlid();
const organisationId = newUlid();

/** The items the load step would have read for an organisation token. */
function world(options: { token?: Partial<Item>; user?: Partial<Item>; access?: string[] | null } = {}) {
  const tokenId = newUlid();
  const token = mintToken({ tokenId, userId, organisationId }, SECRET);
  const items = new Map<string, Item>();
  const put = (item: Item) => items.set(keyString(item), item);
  put({
    ...keys.token(tokenId),
    ...buildToken({ id: tokenId, user_id: userId, organisation_id: organisationId, secret_hash: hashToken(token, SECRET) }),
    ...options.token,
  });
  put({ ...keys.user(userId), ...buildUser({ id: userId }), ...options.user });
  if (options.access !== null)
    put({ ...keys.organisationAccess(userId, organisationId), permissions: options.access ?? ['manage-org-hierarchy', 'view-projects'] });
  return { token, claims: parseToken(token)!, items };
}

function request(
  w: ReturnType<typeof world>,
  operation: unknown = getOrganisation,
  params = { organisation: organisationId },
  token = w.token,
  callerCountedAt?: Date,
) {
  return pipelineRequest({
    operation: operation as AnyOperation,
    state: { token, claims: parseToken(token) ?? undefined, items: w.items, rawParams: params, callerCountedAt },
  });
}

describe('authenticate step', () => {
  it('accepts a token whose keyed hash, expiry and actor are good', async () => {
    expect(await thrownBy(() => authenticate().before!(request(world())))).toBeUndefined();
  });

  it('charges the actor and organisation budgets once the credential authenticated', async () => {
    const r = request(world());
    await authenticate().before!(r);
    expect(countersTouched()).toEqual([
      ['read-actor', 1],
      ['read-organisation', 1],
    ]);
    expect(r.state.budgets!.map((b) => b.budget)).toEqual(['read-actor', 'read-credential', 'read-organisation']);
  });

  it('charges nothing again when the load step counted the caller budgets already', async () => {
    await authenticate().before!(request(world(), getOrganisation, { organisation: organisationId }, undefined, new Date()));
    expect(countersTouched()).toEqual([]);
  });

  it("writes a token's first use", async () => {
    await authenticate().before!(request(world()));
    expect(lastUseWrites()).toHaveLength(1);
  });

  it('writes no last use within the hour of the stored one: most requests cost no write', async () => {
    const r = request(world());
    r.state.items!.get(keyString(keys.token(r.state.claims!.tokenId)))!.last_used_at = new Date(r.state.startedAt.getTime() - 30 * 60_000).toISOString();
    await authenticate().before!(r);
    expect(lastUseWrites()).toEqual([]);
  });

  it('writes the last use again once the stored one is an hour old', async () => {
    const r = request(world());
    r.state.items!.get(keyString(keys.token(r.state.claims!.tokenId)))!.last_used_at = new Date(r.state.startedAt.getTime() - 61 * 60_000).toISOString();
    await authenticate().before!(r);
    expect(lastUseWrites()).toHaveLength(1);
  });

  it('writes no last use for a credential that fails', async () => {
    await thrownBy(() => authenticate().before!(request(world({ user: { status: 'disabled' } }))));
    expect(lastUseWrites()).toEqual([]);
  });

  it('charges no caller budget for a credential that fails', async () => {
    await thrownBy(() => authenticate().before!(request(world({ user: { status: 'disabled' } }))));
    expect(countersTouched()).toEqual([]);
  });

  it('takes back hits counted before a credential failed, and counts it in parallel no more', async () => {
    const w = world({ token: { revoked: true, abilities: ['admin'] } });
    confirmLive(w.claims.tokenId, Date.parse('2027-01-01T00:00:00Z'), Date.now());
    const error = await thrownBy(() => authenticate().before!(request(w, getOrganisation, { organisation: organisationId }, undefined, new Date())));
    expect(error).toMatchObject({ status: 401 });
    expect(countersTouched()).toEqual([
      ['read-actor', -1],
      ['read-organisation', -1],
    ]);
    expect(expectLive(w.claims.tokenId, Date.now())).toBe(false);
  });

  it.each([
    [
      'no token at all',
      () => {
        const w = world();
        return pipelineRequest({ operation: getOrganisation as unknown as AnyOperation, state: { items: w.items } });
      },
    ],
    [
      'an altered secret',
      () => {
        const w = world();
        return request(w, getOrganisation, { organisation: organisationId }, w.token.slice(0, -1) + (w.token.endsWith('A') ? 'B' : 'A'));
      },
    ],
    ['an expired token', () => request(world({ token: { expires_at: '2026-11-22T09:59:59Z' } }))],
    ['a token with no stored mode', () => request(world({ token: { read_only: undefined } }))],
    ['a token with a retired grant', () => request(world({ token: { abilities: ['admin', 'view-projects'] } }))],
    ['a token with an out-of-type grant', () => request(world({ token: { abilities: ['view-projects', 'view-controls'] } }))],
    ['a token missing a dependency', () => request(world({ token: { abilities: ['manage-projects'] } }))],
    ['an organisation token without its organisation', () => request(world({ token: { organisation_id: undefined } }))],
    ['a disabled actor', () => request(world({ user: { status: 'disabled' } }))],
    ['a deleted actor', () => request(world({ user: { status: 'deleted' } }))],
  ])('throws 401 for %s', async (_label, make) => {
    expect(await thrownBy(() => authenticate().before!(make()))).toMatchObject({ status: 401, code: 'unauthenticated' });
  });

  it('throws 401 for a credential that does not match a stored token that fails its schema', async () => {
    const w = world({ token: { expires_at: 20270101 } });
    const altered = w.token.slice(0, -1) + (w.token.endsWith('A') ? 'B' : 'A');
    expect(await thrownBy(() => authenticate().before!(request(w, getOrganisation, { organisation: organisationId }, altered)))).toMatchObject({
      status: 401,
      code: 'unauthenticated',
    });
  });

  it('throws 401 for a stored token item without a readable hash', async () => {
    expect(await thrownBy(() => authenticate().before!(request(world({ token: { secret_hash: undefined } }))))).toMatchObject({ status: 401 });
  });

  it('refuses, naming its key, the stored token that the credential proves but that fails its schema', async () => {
    const w = world({ token: { expires_at: 20270101 } });
    const refusal = await Promise.resolve()
      .then(() => authenticate().before!(request(w)))
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(StoredItemInvalid);
    expect((refusal as Error).message).toContain(keyString(keys.token(w.claims.tokenId)));
  });
});
