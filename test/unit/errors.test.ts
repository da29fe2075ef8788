import { describe, expect, it } from 'vitest';
import {
  type ApiError,
  badRequest,
  conflict,
  methodNotAllowed,
  notFound,
  preconditionFailed,
  RetryableConflict,
  storageUnavailable,
  tooManyRequests,
  unauthorized,
  unsupportedMediaType,
  validationFailed,
} from '../../lib/errors.js';

const shape = (e: ApiError) => ({ status: e.status, code: e.code, title: e.title, detail: e.message, extra: e.extra });

describe('API errors', () => {
  it('carry the status, code, title and detail a problem document is made of', () => {
    expect(shape(badRequest('malformed_json', 'The body is not JSON.'))).toEqual({
      status: 400,
      code: 'malformed_json',
      title: 'Bad Request',
      detail: 'The body is not JSON.',
      extra: {},
    });
  });

  it('challenge for a bearer token on 401', () => {
    expect(unauthorized().extra.headers).toEqual({ 'WWW-Authenticate': 'Bearer realm="api"' });
  });

  it('answer the same 404 detail for missing and hidden resources unless told otherwise', () => {
    expect([notFound().message, notFound('No such release.').message]).toEqual([
      'The resource does not exist or is not available to this credential.',
      'No such release.',
    ]);
  });

  it('name the methods a resource allows on 405', () => {
    expect(methodNotAllowed(['GET', 'PATCH']).extra.headers).toEqual({ Allow: 'GET, PATCH' });
  });

  it('carry extension members on 409', () => {
    expect(conflict('slug_taken', 'The slug is taken.', { slug: 'acme' }).extra.members).toEqual({ slug: 'acme' });
  });

  it('say which media types a patch takes on 415', () => {
    expect(shape(unsupportedMediaType(['application/merge-patch+json', 'application/json']))).toMatchObject({
      status: 415,
      detail: 'The request body must be sent as application/merge-patch+json or application/json.',
      extra: { headers: { 'Accept-Patch': 'application/merge-patch+json, application/json' } },
    });
  });

  it('list the field errors on 422', () => {
    const errors = [{ pointer: '/name', detail: 'is required' }];
    expect(shape(validationFailed(errors))).toMatchObject({ status: 422, code: 'validation_failed', extra: { errors } });
  });

  it('say when to retry on 429, naming the budget', () => {
    expect(shape(tooManyRequests(45, 'read-actor'))).toMatchObject({
      status: 429,
      detail: 'The read-actor budget is spent for this minute; retry after the Retry-After delay.',
      extra: { headers: { 'Retry-After': '45' } },
    });
  });

  it('ask for a retry after a second on 503', () => {
    expect(shape(storageUnavailable())).toMatchObject({ status: 503, code: 'storage_unavailable', extra: { headers: { 'Retry-After': '1' } } });
  });

  it('tell a stale ETag by its code', () => {
    expect([preconditionFailed().status, preconditionFailed().code]).toEqual([412, 'etag_mismatch']);
  });
});

describe('RetryableConflict', () => {
  it('carries the error that stands when the retry conflicts again', () => {
    const final = conflict('slug_taken', 'The slug is taken.');
    expect(new RetryableConflict(final)).toMatchObject({ final, message: 'The slug is taken.' });
  });
});
