import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { newUlid } from '../../../../lib/domain/ids.js';
import { getOrganisation } from '../../../../lib/operations/organisations/organisations.js';
import type { AnyOperation } from '../../../../lib/operations/kernel/operation.js';
import { resetDdbClient } from '../../../../lib/store/client.js';
import { callerBudgets, ingressLimit } from '../../../../lib/http/middlewares/rate-limit.js';
import type { BudgetCount } from '../../../../lib/http/state.js';
import { pipelineRequest, thrownBy } from '../../../support/pipeline.js';

const budget = (name: string, count: number, limit = 3): BudgetCount => ({ budget: name, count, limit, resetSeconds: 17 });
const ddb = mockClient(DynamoDBDocumentClient);
beforeEach(() => {
  ddb.reset();
  resetDdbClient();
  ddb.on(UpdateCommand).resolves({});
});

describe('rate-limit steps', () => {
  it('ingress throws 429 with Retry-After past the per-IP budget', async () => {
    const r = pipelineRequest({ state: { budgets: [budget('ingress', 4)] } });
    expect(await thrownBy(() => ingressLimit().before!(r))).toMatchObject({ status: 429, code: 'rate_limited', headers: { 'Retry-After': '17' } });
  });

  it('ingress takes back caller hits counted before authentication when it refuses the request', async () => {
    const claims = { tokenId: newUlid(), userId: newUlid(), organisationId: newUlid() };
    const r = pipelineRequest({
      operation: getOrganisation as unknown as AnyOperation,
      state: { claims, callerCountedAt: new Date(), budgets: [budget('ingress', 4), budget('read-actor', 1)] },
    });
    expect(await thrownBy(() => ingressLimit().before!(r))).toMatchObject({ status: 429 });
    const refunds = ddb
      .commandCalls(UpdateCommand)
      .map((c) => [String(c.args[0].input.Key!.PK).split('#')[1], c.args[0].input.ExpressionAttributeValues![':d']]);
    expect(refunds).toEqual([
      ['read-actor', -1],
      ['read-organisation', -1],
    ]);
    expect(r.state.budgets!.map((b) => b.budget)).toEqual(['ingress']);
  });

  it('ingress ignores the caller budgets, which wait for authentication', async () => {
    const r = pipelineRequest({ state: { budgets: [budget('ingress', 1), budget('read-credential', 99)] } });
    expect(await thrownBy(() => ingressLimit().before!(r))).toBeUndefined();
  });

  it('caller budgets throw 429 naming the spent budget', async () => {
    const r = pipelineRequest({ state: { budgets: [budget('ingress', 1), budget('read-credential', 2), budget('read-actor', 6, 5)] } });
    const error = await thrownBy(() => callerBudgets().before!(r));
    expect(error).toMatchObject({ status: 429 });
  });

  it('advertises every caller budget and the tightest remaining one', async () => {
    const r = pipelineRequest({ state: { budgets: [budget('read-credential', 1, 120), budget('read-actor', 239, 240)] } });
    callerBudgets().before!(r);
    expect(r.state.responseHeaders['RateLimit-Policy']).toBe('"read-credential";q=120;w=60, "read-actor";q=240;w=60');
    expect(r.state.responseHeaders.RateLimit).toBe('"read-actor";r=1;t=17');
  });
});
