import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { consoleRequest, jsonOf } from '../../../lib/console/http.js';

const request = (body: string) =>
  consoleRequest({
    httpMethod: 'POST',
    path: '/console/sign-in/finish',
    headers: { 'Content-Type': 'application/json' },
    body,
  } as unknown as APIGatewayProxyEvent);

describe('jsonOf', () => {
  it('reads a JSON object body', () => {
    expect(jsonOf(request('{"id":"cred","response":{"id":"x"}}'))).toEqual({ id: 'cred', response: { id: 'x' } });
  });

  it('refuses a body that names a key twice', () => {
    expect(jsonOf(request('{"id":"cred","id":"other"}'))).toBeUndefined();
  });

  it('refuses a body that is not JSON', () => {
    expect(jsonOf(request('{"id":'))).toBeUndefined();
  });
});
