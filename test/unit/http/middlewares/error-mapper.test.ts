import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { errorMapper } from '../../../../lib/http/middlewares/error-mapper.js';
import { resetDdbClient } from '../../../../lib/store/client.js';
import { ReceiptRaceError } from '../../../../lib/store/receipts.js';
import { TransactionConflictError, TransactionThrottledError } from '../../../../lib/store/transact.js';
import { pipelineRequest } from '../../../support/pipeline.js';

const ddb = mockClient(DynamoDBDocumentClient);
beforeEach(() => {
  ddb.reset();
  ddb.on(PutCommand).resolves({});
  resetDdbClient();
});

async function mapped(error: unknown) {
  const r = pipelineRequest();
  r.error = error as Error;
  await errorMapper().onError!(r);
  return { response: r.response!, body: JSON.parse(r.response!.body) as Record<string, unknown> };
}

const networkError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('error-mapper: storage that cannot answer', () => {
  it('answers a transaction conflict as 503 storage_unavailable even when minification renamed its class', async () => {
    // What a minified bundle holds: the same class under a one-letter name.
    const minified = class e extends TransactionConflictError {};
    const { response, body } = await mapped(new minified('transaction conflict persisted'));
    expect(response.statusCode).toBe(503);
    expect(body).toMatchObject({ status: 503, code: 'storage_unavailable' });
    expect(response.headers!['Retry-After']).toBe('1');
  });

  it('answers a transaction refused for capacity as 503 storage_unavailable', async () => {
    const { response, body } = await mapped(new TransactionThrottledError('transaction throttled'));
    expect(response.statusCode).toBe(503);
    expect(body.code).toBe('storage_unavailable');
  });

  it('answers a refused connection as 503 storage_unavailable', async () => {
    const { response, body } = await mapped(networkError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:9'));
    expect(response.statusCode).toBe(503);
    expect(body.code).toBe('storage_unavailable');
  });

  it('answers a refusal on every address of a host (AggregateError) as 503', async () => {
    const refused = Object.assign(
      new AggregateError([networkError('ECONNREFUSED', 'connect ECONNREFUSED ::1:9'), networkError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:9')]),
      { code: undefined },
    );
    expect((await mapped(refused)).response.statusCode).toBe(503);
  });

  it('answers a reset socket (socket hang up) as 503', async () => {
    expect((await mapped(networkError('ECONNRESET', 'socket hang up'))).response.statusCode).toBe(503);
  });

  it('answers a connection that timed out as 503', async () => {
    expect((await mapped(networkError('ETIMEDOUT', 'connect ETIMEDOUT 10.0.0.1:443'))).response.statusCode).toBe(503);
  });

  it("answers the SDK's own request timeout as 503", async () => {
    const timeout = Object.assign(new Error('Connection timed out after 1000 ms'), { name: 'TimeoutError' });
    expect((await mapped(timeout)).response.statusCode).toBe(503);
  });

  it('answers a service-side failure the SDK could not retry past as 503', async () => {
    const serverFault = Object.assign(new Error('Internal server error'), { name: 'InternalServerError', $fault: 'server' });
    expect((await mapped(serverFault)).response.statusCode).toBe(503);
  });

  it('answers a storage error caused by a network error as 503', async () => {
    const wrapped = new Error('request failed', { cause: networkError('ECONNRESET', 'read ECONNRESET') });
    expect((await mapped(wrapped)).response.statusCode).toBe(503);
  });

  it('answers an unexpected error with a code of its own as 500', async () => {
    const { response, body } = await mapped(networkError('EACCES', 'permission denied'));
    expect(response.statusCode).toBe(500);
    expect(body.code).toBe('internal_error');
  });

  it('answers a client-side SDK failure as 500', async () => {
    const clientFault = Object.assign(new Error('One or more parameter values were invalid'), { name: 'ValidationException', $fault: 'client' });
    expect((await mapped(clientFault)).response.statusCode).toBe(500);
  });

  it('answers an internal race the pipeline did not resolve as 500, not as a storage outage', async () => {
    expect((await mapped(new ReceiptRaceError('a concurrent request holds this Idempotency-Key'))).response.statusCode).toBe(500);
  });
});
