import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMetaHandler } from '../../../lib/http/meta.js';
import { logger } from '../../../lib/log.js';

const event = (httpMethod: string) =>
  ({ httpMethod, path: '/api/v1/openapi.json', headers: {}, requestContext: { identity: { sourceIp: '203.0.113.9' } } }) as unknown as APIGatewayProxyEvent;

afterEach(() => vi.restoreAllMocks());

describe('meta function', () => {
  it('names getOpenApiDocument in the request log of the OpenAPI document', async () => {
    const info = vi.spyOn(logger, 'info').mockImplementation(() => {});
    const handler = createMetaHandler({ document: '{}', routes: [] });
    const response = await handler(event('GET'), {} as Context);
    expect(response.statusCode).toBe(200);
    expect(info).toHaveBeenCalledWith('request', expect.objectContaining({ operation_id: 'getOpenApiDocument', status: 200 }));
  });
});
