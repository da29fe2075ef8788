import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { beforeAll } from 'vitest';
import { resetTokenHashSecret } from '../../lib/auth/secret.js';
import { resetSettings } from '../../lib/config.js';
import type { AnyOperation } from '../../lib/operations/kernel/operation.js';
import type { PipelineRequest, PipelineState } from '../../lib/http/state.js';

/** A pipeline request as the steps see it, for testing one step on its own. */
export function pipelineRequest(
  options: {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    query?: Record<string, string>;
    body?: string;
    operation?: AnyOperation;
    state?: Partial<PipelineState>;
  } = {},
): PipelineRequest {
  const event = {
    httpMethod: options.method ?? 'GET',
    path: options.path ?? '/api/v1/organisations',
    headers: options.headers ?? {},
    multiValueHeaders: {},
    queryStringParameters: options.query ?? null,
    multiValueQueryStringParameters: options.query ? Object.fromEntries(Object.entries(options.query).map(([k, v]) => [k, [v]])) : null,
    body: options.body ?? null,
    isBase64Encoded: false,
    requestContext: { identity: { sourceIp: '203.0.113.9' } },
  } as unknown as APIGatewayProxyEvent;
  return {
    event,
    context: {} as Context,
    response: null,
    error: null,
    internal: {},
    state: {
      requestId: 'REQ',
      startedAt: new Date('2026-11-22T10:00:00Z'),
      ip: '203.0.113.9',
      page: { number: 1, size: 50 },
      responseHeaders: {},
      operation: options.operation,
      rawParams: {},
      ...options.state,
    },
  };
}

/** Runs a step's before hook and returns the error it throws, if any. */
export async function thrownBy(fn: () => unknown): Promise<{ status: number; code: string; headers?: Record<string, string> } | undefined> {
  try {
    await fn();
    return undefined;
  } catch (error) {
    const e = error as { status: number; code: string; extra?: { headers?: Record<string, string> } };
    return { status: e.status, code: e.code, headers: e.extra?.headers };
  }
}

/** Keys the token hashes of this test file with `secret`, so that it can mint tokens the pipeline accepts. */
export function useTokenHashSecret(secret: string): void {
  beforeAll(() => {
    process.env.TOKEN_HASH_SECRET = secret;
    resetSettings();
    resetTokenHashSecret();
  });
}
