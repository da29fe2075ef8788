import { BatchGetCommand, DynamoDBDocumentClient, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { newUlid } from '../../../lib/domain/ids.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { hashToken, mintToken } from '../../../lib/auth/tokens.js';
import { createApiHandler } from '../../../lib/http/pipeline.js';
import { operations } from '../../../lib/operations/organisations/index.js';
import { resetDdbClient } from '../../../lib/store/client.js';
import { keys } from '../../../lib/store/keys.js';
import { organisationPut } from '../../../lib/store/organisations.js';
import type { Item } from '../../../lib/store/read.js';
import { buildOrganisation, buildToken, buildUser, storedAccess } from '../../support/factories.js';
import type { AccessScope } from '../../../lib/store/identity.js';
import { pipelineRequest, useTokenHashSecret } from '../../support/pipeline.js';
import { mockedItems } from '../../support/table-mock.js';

/**
 * The organisations function's pipeline end to end on a mocked table: which step answers a request
 * (status, problem code, headers) and whether the operation ran, as the steps' order decides.
 */
const SECRET = 'p'.repeat(48);
const ddb = mockClient(DynamoDBDocumentClient);
const table = mockedItems(ddb);
const store = table.put;

useTokenHashSecret(SECRET);
beforeEach(() => {
  ddb.reset();
  resetDdbClient();
  table.answer();
  ddb.on(QueryCommand).resolves({ Items: [] });
  ddb.on(UpdateCommand).resolves({ Attributes: { count: 1 } });
  ddb.on(TransactWriteCommand).resolves({});
  ddb.on(PutCommand).resolves({});
});

const handler = createApiHandler(operations);
const organisation = buildOrganisation();

/** A credential of a user with the given live permissions: an organisation's of `organisation`, or the installation's. */
function credential(type: 'organisation' | 'administration', permissions: string[]): string {
  const userId = newUlid();
  const tokenId = newUlid();
  const organisationId = type === 'organisation' ? organisation.id : undefined;
  const token = mintToken({ tokenId, userId, organisationId }, SECRET);
  const scope: AccessScope = type === 'organisation' ? { kind: 'organisation', id: organisation.id } : { kind: 'installation' };
  store(
    {
      ...keys.token(tokenId),
      ...buildToken({
        id: tokenId,
        user_id: userId,
        type,
        organisation_id: organisationId,
        abilities: ['manage-org-hierarchy'],
        secret_hash: hashToken(token, SECRET),
      }),
    },
    { ...keys.user(userId), ...buildUser({ id: userId }) },
    storedAccess(userId, scope, permissions),
    organisationPut(organisation) as Item,
  );
  return token;
}

async function call(method: string, path: string, options: { token?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers = { ...options.headers, ...(options.token ? { Authorization: `Bearer ${options.token}` } : {}) };
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  const event: APIGatewayProxyEvent = pipelineRequest({
    method,
    path: `/api/v1${path}`,
    headers: body ? { 'Content-Type': 'application/json', ...headers } : headers,
    ...(body ? { body } : {}),
  }).event;
  const response = await handler(event, {} as Context);
  return { status: response.statusCode, headers: response.headers ?? {}, body: response.body ? JSON.parse(response.body) : undefined };
}

const MERGE_PATCH = { 'Content-Type': 'application/merge-patch+json', 'If-Match': '"x"' };
const transactions = () => ddb.commandCalls(TransactWriteCommand);

describe('the request pipeline', () => {
  it('answers a path no operation has 404 as problem+json with a request id, reading nothing', async () => {
    const response = await call('GET', '/nowhere');
    expect({
      status: response.status,
      type: response.headers['Content-Type'],
      id: response.headers['X-Request-ID'],
      reads: ddb.commandCalls(BatchGetCommand),
    }).toEqual({
      status: 404,
      type: 'application/problem+json',
      id: expect.stringMatching(/^[0-9A-Z]{26}$/),
      reads: [],
    });
  });

  it('answers a request without a credential 401 with a Bearer challenge', async () => {
    const response = await call('GET', `/organisations/${organisation.id}`);
    expect({ status: response.status, code: response.body.code, challenge: response.headers['WWW-Authenticate'] }).toEqual({
      status: 401,
      code: 'unauthenticated',
      challenge: 'Bearer realm="api"',
    });
  });

  it('charges the ingress budget of a request it refuses for want of a credential', async () => {
    await call('GET', `/organisations/${organisation.id}`);
    expect(ddb.commandCalls(UpdateCommand).map((c) => String(c.args[0].input.Key!.PK).split('#')[1])).toEqual(['ingress']);
  });

  it("answers an authorised read 200 with the operation's data", async () => {
    const response = await call('GET', `/organisations/${organisation.id}`, { token: credential('organisation', ['manage-org-hierarchy']) });
    expect({ status: response.status, id: response.body.data.id, etag: response.headers.ETag }).toEqual({
      status: 200,
      id: organisation.id,
      etag: expect.any(String),
    });
  });

  it('checks authority before the body: a caller without the permission is 403 whatever the body', async () => {
    const token = credential('organisation', ['view-projects']);
    const response = await call('PATCH', `/organisations/${organisation.id}`, { token, body: { name: 42 }, headers: MERGE_PATCH });
    expect([response.status, response.body.code]).toEqual([403, 'permission_denied']);
  });

  it('refuses an invalid body 422 from an authorised caller, writing nothing', async () => {
    const token = credential('organisation', ['manage-org-hierarchy']);
    const response = await call('PATCH', `/organisations/${organisation.id}`, { token, body: { name: 42 }, headers: MERGE_PATCH });
    expect({ status: response.status, code: response.body.code, writes: transactions() }).toEqual({ status: 422, code: 'validation_failed', writes: [] });
  });

  it('replays the first response to a repeated request with the same Idempotency-Key, writing nothing again', async () => {
    const token = credential('administration', ['manage-org-hierarchy']);
    const request = { token, body: { name: 'Acme', timezone: 'UTC' }, headers: { 'Idempotency-Key': 'k-1' } };
    const first = await call('POST', '/organisations', request);
    const written = transactions()[0]!
      .args[0].input.TransactItems!.map((t) => t.Put?.Item)
      .filter((i) => i && String(i.PK).startsWith('RECEIPT#'));
    store(...(written as Item[]));
    const again = await call('POST', '/organisations', request);
    expect({ status: again.status, data: again.body.data, replayed: again.headers['Idempotency-Replayed'], writes: transactions().length }).toEqual({
      status: 201,
      data: first.body.data,
      replayed: 'true',
      writes: 1,
    });
  });
});
