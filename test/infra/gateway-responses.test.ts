import { beforeAll, describe, expect, it } from 'vitest';
import { PROBLEM_TYPE_BASE } from '../../lib/http/problem.js';
import { resourcesOf, synthesize, type Synthesized } from './fixture.js';

interface GatewayResponse {
  ResponseType: string;
  StatusCode?: string;
  ResponseParameters: Record<string, string>;
  ResponseTemplates: Record<string, string>;
}

/** A request id of the gateway's UUID form, put where the gateway substitutes $context.requestId. */
const REQUEST_ID = '6d1a3c52-0b2e-4f8e-9a51-0f1f8d2c7e44';

describe('API Gateway answers of its own', () => {
  let byType: Map<string, GatewayResponse>;
  beforeAll(() => {
    const s: Synthesized = synthesize();
    const responses = Object.values(resourcesOf(s.apiTemplate, 'AWS::ApiGateway::GatewayResponse')).map((r) => r.Properties as unknown as GatewayResponse);
    byType = new Map(responses.map((r) => [r.ResponseType, r]));
  }, 60_000);

  const bodyOf = (r: GatewayResponse) =>
    JSON.parse(r.ResponseTemplates['application/json']!.replaceAll('$context.requestId', REQUEST_ID)) as Record<string, unknown>;

  it.each([
    ['REQUEST_TOO_LARGE', 413, 'payload_too_large'],
    ['THROTTLED', 429, 'rate_limited'],
    ['WAF_FILTERED', 429, 'rate_limited'],
    ['QUOTA_EXCEEDED', 429, 'quota_exceeded'],
    ['MISSING_AUTHENTICATION_TOKEN', 404, 'not_found'],
    ['INTEGRATION_TIMEOUT', 504, 'gateway_timeout'],
    ['INTEGRATION_FAILURE', 502, 'gateway_error'],
  ])('answers %s with %i as a problem with the request id', (type, status, code) => {
    const response = byType.get(type);
    expect(response?.StatusCode).toBe(String(status));
    expect(response!.ResponseParameters).toMatchObject({
      'gatewayresponse.header.Content-Type': "'application/problem+json'",
      'gatewayresponse.header.X-Request-ID': 'context.requestId',
      'gatewayresponse.header.Cache-Control': "'no-store'",
    });
    expect(bodyOf(response!)).toEqual({
      type: PROBLEM_TYPE_BASE + code.replace(/_/g, '-'),
      title: expect.any(String),
      status,
      detail: expect.any(String),
      code,
      instance: `urn:uuid:${REQUEST_ID}`,
      request_id: REQUEST_ID,
    });
  });

  it('tells throttled clients when to retry', () => {
    for (const type of ['THROTTLED', 'WAF_FILTERED']) {
      expect(Number(byType.get(type)!.ResponseParameters['gatewayresponse.header.Retry-After']!.replaceAll("'", ''))).toBeGreaterThan(0);
    }
  });

  it.each(['DEFAULT_4XX', 'DEFAULT_5XX'])('answers every other %s as a problem that keeps the gateway status', (type) => {
    const response = byType.get(type)!;
    expect(response.StatusCode).toBeUndefined();
    expect(response.ResponseParameters).toMatchObject({
      'gatewayresponse.header.Content-Type': "'application/problem+json'",
      'gatewayresponse.header.X-Request-ID': 'context.requestId',
    });
    const body = bodyOf(response);
    expect(body).toMatchObject({ code: expect.any(String), request_id: REQUEST_ID, instance: `urn:uuid:${REQUEST_ID}` });
    expect(body).not.toHaveProperty('status');
  });
});
