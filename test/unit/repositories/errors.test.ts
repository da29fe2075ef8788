import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { errorMapper } from '../../../lib/http/middlewares/error-mapper.js';
import {
  RepositoryAddressRefusedError,
  RepositoryFileNotFoundError,
  RepositoryFileTooLargeError,
  RepositoryTimeoutError,
  RepositoryUnavailableError,
  RepositoryUpstreamError,
} from '../../../lib/repositories/errors.js';
import { resetDdbClient } from '../../../lib/store/client.js';
import { pipelineRequest } from '../../support/pipeline.js';

const ddb = mockClient(DynamoDBDocumentClient);
beforeEach(() => {
  ddb.reset();
  ddb.on(PutCommand).resolves({});
  resetDdbClient();
});

async function mapped(error: Error) {
  const r = pipelineRequest({ path: '/api/v1/projects/P/controls/C/evidence/E/content' });
  r.error = error;
  await errorMapper().onError!(r);
  return { response: r.response!, body: JSON.parse(r.response!.body) as Record<string, unknown> };
}

const refused = () => Object.assign(new Error('connect ECONNREFUSED 140.82.112.6:443'), { code: 'ECONNREFUSED' });

describe('error-mapper: repository providers', () => {
  it('answers a timeout as 504 repository_timeout, even when its cause looks like a storage timeout', async () => {
    const cause = Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' });
    const { response, body } = await mapped(new RepositoryTimeoutError('GitHub did not answer before the deadline', { cause }));
    expect(response.statusCode).toBe(504);
    expect(response.headers!['Content-Type']).toBe('application/problem+json');
    expect(body).toMatchObject({ status: 504, code: 'repository_timeout' });
  });

  it('answers throttling as 503 repository_unavailable with the Retry-After the provider gave', async () => {
    const { response, body } = await mapped(new RepositoryUnavailableError('GitHub answered 429: rate limited', 42));
    expect(response.statusCode).toBe(503);
    expect(body.code).toBe('repository_unavailable');
    expect(response.headers!['Retry-After']).toBe('42');
  });

  it('answers an unreachable provider as 503 repository_unavailable, not storage_unavailable, and without Retry-After when none was given', async () => {
    const { response, body } = await mapped(new RepositoryUnavailableError('GitHub could not be reached', undefined, { cause: refused() }));
    expect(body.code).toBe('repository_unavailable');
    expect(response.headers!['Retry-After']).toBeUndefined();
  });

  it('answers any other upstream failure as 502 repository_upstream_error', async () => {
    const { response, body } = await mapped(new RepositoryUpstreamError('GitHub answered 500'));
    expect(response.statusCode).toBe(502);
    expect(body.code).toBe('repository_upstream_error');
  });

  it('answers a host inside the network as 502 repository_address_not_allowed, without naming the address', async () => {
    const { response, body } = await mapped(new RepositoryAddressRefusedError('the repository host git.example resolves to 10.0.0.7, a private address'));
    expect(response.statusCode).toBe(502);
    expect(body.code).toBe('repository_address_not_allowed');
    expect(response.body).not.toContain('10.0.0.7');
  });

  it('answers a missing ref or path as 404 repository_file_not_found', async () => {
    const { response, body } = await mapped(new RepositoryFileNotFoundError('GitHub answered 404'));
    expect(response.statusCode).toBe(404);
    expect(body.code).toBe('repository_file_not_found');
  });

  it('answers a file above the limit as 409 evidence_content_too_large with its size', async () => {
    const { response, body } = await mapped(new RepositoryFileTooLargeError(6_000_000, 5_242_880));
    expect(response.statusCode).toBe(409);
    expect(body).toMatchObject({ code: 'evidence_content_too_large', size: 6_000_000, limit: 5_242_880 });
  });

  it('never passes on the provider message, its cause or a stack', async () => {
    const secretish = 'Bearer ghp_leak https://api.github.com/repos/acme/private/contents/x';
    const { response } = await mapped(new RepositoryUpstreamError(secretish, { cause: new Error(secretish) }));
    expect(response.body).not.toContain('ghp_leak');
    expect(response.body).not.toContain('api.github.com');
    expect(response.body).not.toMatch(/\bat .*\.ts:\d+/);
  });
});
