import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { BatchGetCommand, DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { newUlid } from '../../../../lib/domain/ids.js';
import { mintToken, parseToken } from '../../../../lib/auth/tokens.js';
import { confirmLive, forgetLive } from '../../../../lib/http/live-credentials.js';
import { load } from '../../../../lib/http/middlewares/load.js';
import { createOrganisation, getOrganisation } from '../../../../lib/operations/organisations/organisations.js';
import type { AnyOperation } from '../../../../lib/operations/kernel/operation.js';
import { resetDdbClient } from '../../../../lib/store/client.js';
import { keys } from '../../../../lib/store/keys.js';
import { keyString } from '../../../../lib/store/read.js';
import { idempotencyDigest } from '../../../../lib/store/receipts.js';
import { pipelineRequest, useTokenHashSecret } from '../../../support/pipeline.js';

const ddb = mockClient(DynamoDBDocumentClient);
const SECRET = 'm'.repeat(48);
useTokenHashSecret(SECRET);
beforeEach(() => {
  ddb.reset();
  resetDdbClient();
  ddb.on(BatchGetCommand).resolves({ Responses: {} });
  ddb.on(UpdateCommand).resolves({ Attributes: { count: 1 } });
});

const userId = newUlid();
const organisationId = newUlid();
const token = mintToken({ tokenId: newUlid(), userId, organisationId }, SECRET);

describe('load step', () => {
  it('reads token, actor, access, the operation prefetch and the receipt in one BatchGetItem, with the ingress counter in parallel', async () => {
    const request = pipelineRequest({
      method: 'POST',
      operation: createOrganisation as unknown as AnyOperation,
      headers: { Authorization: `Bearer ${token}`, 'Idempotency-Key': 'k-1' },
    });
    await load().before!(request);
    const keysRead = ddb.commandCalls(BatchGetCommand)[0]!.args[0].input.RequestItems!['assessment-operations']!.Keys!.map((k) => `${k.PK}|${k.SK}`);
    const claims = parseToken(token)!;
    expect(keysRead).toEqual([
      keyString(keys.token(claims.tokenId)),
      keyString(keys.user(userId)),
      keyString(keys.organisationAccess(userId, organisationId)),
      keyString(keys.receipt(userId, idempotencyDigest('k-1'))),
    ]);
    expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(1);
    const budgets = ddb.commandCalls(UpdateCommand).map((c) => String(c.args[0].input.Key!.PK).split('#')[1]);
    expect(budgets).toEqual(['ingress']);
  });

  it('counts the caller budgets in parallel too for a credential that authenticated here lately', async () => {
    const claims = parseToken(token)!;
    confirmLive(claims.tokenId, Date.now() + 60_000, Date.now());
    await load().before!(
      pipelineRequest({ method: 'POST', operation: createOrganisation as unknown as AnyOperation, headers: { Authorization: `Bearer ${token}` } }),
    );
    forgetLive(claims.tokenId);
    const budgets = ddb.commandCalls(UpdateCommand).map((c) => String(c.args[0].input.Key!.PK).split('#')[1]);
    expect(budgets).toEqual(['ingress', 'mutation-actor', 'mutation-organisation']);
  });

  it('takes back the caller hits it counted when the reads fail, since the request will not authenticate', async () => {
    const claims = parseToken(token)!;
    confirmLive(claims.tokenId, Date.now() + 60_000, Date.now());
    ddb.on(BatchGetCommand).rejects(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    const request = pipelineRequest({ operation: getOrganisation as unknown as AnyOperation, headers: { Authorization: `Bearer ${token}` } });
    await expect(load().before!(request)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    forgetLive(claims.tokenId);
    const refunds = ddb
      .commandCalls(UpdateCommand)
      .filter((c) => c.args[0].input.ExpressionAttributeValues![':d'] === -1)
      .map((c) => String(c.args[0].input.Key!.PK).split('#')[1]);
    expect(refunds).toEqual(['read-actor', 'read-organisation']);
    expect(request.state.callerCountedAt).toBeUndefined();
  });

  it('reads nothing but the ingress counter without a well-formed token', async () => {
    await load().before!(pipelineRequest({ operation: getOrganisation as unknown as AnyOperation, headers: { Authorization: 'Bearer nonsense' } }));
    expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(0);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(1);
  });

  it('leaves out the resource when the path parameters are not valid', async () => {
    const request = pipelineRequest({
      operation: getOrganisation as unknown as AnyOperation,
      headers: { Authorization: `Bearer ${token}` },
      state: { rawParams: { organisation: 'bad' } },
    });
    await load().before!(request);
    const count = ddb.commandCalls(BatchGetCommand)[0]!.args[0].input.RequestItems!['assessment-operations']!.Keys!.length;
    expect(count).toBe(3);
  });
});
