import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { permissionsOf } from '../../lib/domain/permissions.js';
import { parseToken } from '../../lib/auth/tokens.js';
import { deleteToken, setUserStatus } from '../../lib/store/identity.js';
import { fixtures, startApi, type Api } from '../support/api.js';

const ACTOR_READS = 6;
const ORGANISATION_READS = 10;
const SPAM = 25;
let api: Api;

beforeAll(async () => {
  api = await startApi({
    API_READ_RATE_LIMIT_PER_MINUTE: '1000',
    API_ACTOR_READ_RATE_LIMIT_PER_MINUTE: String(ACTOR_READS),
    API_ORGANISATION_READ_RATE_LIMIT_PER_MINUTE: String(ORGANISATION_READS),
  });
});
afterAll(() => api.stop());

// Fixed one-minute windows: a test that straddles a boundary would see fresh budgets.
async function atStartOfWindow(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 45_000) await new Promise((r) => setTimeout(r, 60_500 - intoMinute));
}

async function member(organisationId: string, options: { expiresAt?: string } = {}) {
  const userId = await fixtures.user();
  await fixtures.grant(userId, { kind: 'organisation', id: organisationId }, permissionsOf('organisation'));
  const token = await fixtures.token(userId, 'organisation', { organisationId, expiresAt: options.expiresAt });
  return { userId, token };
}

const read = (token: string, organisationId: string) => api.request('GET', `/api/v1/organisations/${organisationId}`, { token });

async function statuses(token: string, organisationId: string, count: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push((await read(token, organisationId)).status);
  return out;
}

/** Reads until the first 429 (or `cap`): how many a caller still had. The refused read counts too. */
async function readsLeft(token: string, organisationId: string, cap: number): Promise<number> {
  for (let i = 0; i < cap; i++) if ((await read(token, organisationId)).status === 429) return i;
  return cap;
}

/**
 * Each dead credential was used once while live (so this instance had seen it authenticate), then
 * died, then was spent far past every budget: the live colleagues keep exactly what they had.
 */
describe('a credential that fails authentication', () => {
  it('spends nothing of its actor or organisation when revoked', async () => {
    await atStartOfWindow();
    const organisationId = await fixtures.organisation(await fixtures.user());
    const victim = await member(organisationId);
    const colleague = await member(organisationId);
    const dead = await fixtures.token(victim.userId, 'organisation', { organisationId });
    expect((await read(dead, organisationId)).status).toBe(200);
    await deleteToken(parseToken(dead)!.tokenId);
    expect(new Set(await statuses(dead, organisationId, SPAM))).toEqual(new Set([401]));

    expect(await readsLeft(victim.token, organisationId, ACTOR_READS + 1)).toBe(ACTOR_READS - 1);
    expect(await readsLeft(colleague.token, organisationId, ORGANISATION_READS)).toBe(ORGANISATION_READS - 1 - ACTOR_READS);
  });

  it('spends nothing of its actor or organisation once expired', async () => {
    await atStartOfWindow();
    const organisationId = await fixtures.organisation(await fixtures.user());
    const victim = await member(organisationId, { expiresAt: new Date(Date.now() + 1_500).toISOString() });
    const colleague = await member(organisationId);
    expect((await read(victim.token, organisationId)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1_600));
    expect(new Set(await statuses(victim.token, organisationId, SPAM))).toEqual(new Set([401]));

    const second = await fixtures.token(victim.userId, 'organisation', { organisationId });
    expect(await readsLeft(second, organisationId, ACTOR_READS + 1)).toBe(ACTOR_READS - 1);
    expect(await readsLeft(colleague.token, organisationId, ORGANISATION_READS)).toBe(ORGANISATION_READS - 1 - ACTOR_READS);
  });

  it('spends nothing of its organisation when its user is disabled', async () => {
    await atStartOfWindow();
    const organisationId = await fixtures.organisation(await fixtures.user());
    const disabled = await member(organisationId);
    const colleagues = [await member(organisationId), await member(organisationId)];
    expect((await read(disabled.token, organisationId)).status).toBe(200);
    await setUserStatus(disabled.userId, 'disabled');
    expect(new Set(await statuses(disabled.token, organisationId, SPAM))).toEqual(new Set([401]));

    // Two colleagues, since one alone would meet the actor budget first.
    const first = await readsLeft(colleagues[0]!.token, organisationId, ACTOR_READS - 1);
    const second = await readsLeft(colleagues[1]!.token, organisationId, ACTOR_READS);
    expect(first + second).toBe(ORGANISATION_READS - 1);
  });
});
