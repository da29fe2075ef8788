import { beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { resetDdbClient } from '../../../../lib/store/client.js';
import { errorMapper } from '../../../../lib/http/middlewares/error-mapper.js';
import { responseHeaders } from '../../../../lib/http/middlewares/response-headers.js';
import { notFound, tooManyRequests, validationFailed } from '../../../../lib/errors.js';
import { pipelineRequest } from '../../../support/pipeline.js';

const ddb = mockClient(DynamoDBDocumentClient);
beforeEach(() => {
  ddb.reset();
  ddb.on(PutCommand).resolves({});
  resetDdbClient();
});

async function mapped(error: Error) {
  const r = pipelineRequest();
  r.error = error;
  await errorMapper().onError!(r);
  return { response: r.response!, body: JSON.parse(r.response!.body) };
}

describe('response-headers step', () => {
  it('assigns a ULID request id before anything else and puts it on the response', () => {
    const r = pipelineRequest();
    const step = responseHeaders();
    step.before!(r);
    expect(r.state.requestId).toMatch(/^[0-9A-Z]{26}$/);
    r.response = { statusCode: 200, headers: {}, body: '' };
    step.after!(r);
    expect(r.response.headers!['X-Request-ID']).toBe(r.state.requestId);
  });

  it('puts the request id on error responses too', () => {
    const r = pipelineRequest();
    const step = responseHeaders();
    step.before!(r);
    r.response = { statusCode: 401, headers: { 'Content-Type': 'application/problem+json' }, body: '{}' };
    step.onError!(r);
    expect(r.response.headers!['X-Request-ID']).toBe(r.state.requestId);
  });
});

describe('error-mapper step', () => {
  it('answers an ApiError as problem+json with code, instance and request id', async () => {
    const { response, body } = await mapped(notFound());
    expect(response.statusCode).toBe(404);
    expect(response.headers!['Content-Type']).toBe('application/problem+json');
    expect(body).toMatchObject({ status: 404, code: 'not_found', title: 'Not Found', instance: '/api/v1/organisations', request_id: 'REQ' });
    expect(body.type).toMatch(/not-found$/);
  });

  it('lists the offending properties of a 422 in errors', async () => {
    const { body } = await mapped(validationFailed([{ pointer: '/name', detail: 'must not be blank' }]));
    expect(body.errors).toEqual([{ pointer: '/name', detail: 'must not be blank' }]);
  });

  it('answers an unexpected error as 500 with nothing of the error in it', async () => {
    const { response } = await mapped(new Error('secret table name t-123 exploded at /var/task'));
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toMatch(/t-123|var\/task|exploded|at /);
  });

  it('answers DynamoDB throttling as 503 with Retry-After', async () => {
    const throttled = Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    const { response } = await mapped(throttled);
    expect(response.statusCode).toBe(503);
    expect(response.headers!['Retry-After']).toBe('1');
  });

  it('writes a failure audit record with no query or body values', async () => {
    const r = pipelineRequest({ query: { 'page[size]': 'hunter2' }, body: '{"name":"hunter2"}' });
    r.error = validationFailed([]);
    await errorMapper().onError!(r);
    const item = ddb.commandCalls(PutCommand)[0]!.args[0].input.Item!;
    expect(item).toMatchObject({ kind: 'REQUEST_FAILED', status: 422, route: 'unmatched', request_id: 'REQ' });
    expect(JSON.stringify(item)).not.toContain('hunter2');
  });

  it('writes a 429 audit record once per IP and minute, with a conditional put', async () => {
    const r = pipelineRequest();
    r.error = tooManyRequests(10, 'read credential');
    await errorMapper().onError!(r);
    const input = ddb.commandCalls(PutCommand)[0]!.args[0].input;
    expect(input.Item!.SK).toBe(`RATE_LIMITED#203.0.113.9#${Math.floor(Date.parse('2026-11-22T10:00:00Z') / 60_000)}`);
    expect(input.ConditionExpression).toMatch(/^attribute_not_exists/);
  });
});
