import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../lib/errors.js';
import { internalError, PROBLEM_TYPE_BASE, problemResponse } from '../../../lib/http/problem.js';

const error = new ApiError(422, 'validation_failed', 'Unprocessable Content', 'The body has errors.', {
  errors: [{ pointer: '/name', code: 'required', detail: 'is required' }],
  headers: { 'Retry-After': '5' },
  members: { limit: 3 },
});

describe('problemResponse', () => {
  it('answers RFC 9457 problem+json that is never cached, with the error headers', () => {
    const res = problemResponse(error, 'req-1', '/api/v1/x');
    expect(res.statusCode).toBe(422);
    expect(res.headers).toEqual({ 'Content-Type': 'application/problem+json', 'Cache-Control': 'no-store', 'Retry-After': '5' });
  });

  it('names the code in the type, and carries the request, the members and the field errors', () => {
    expect(JSON.parse(problemResponse(error, 'req-1', '/api/v1/x').body)).toEqual({
      type: `${PROBLEM_TYPE_BASE}validation-failed`,
      title: 'Unprocessable Content',
      status: 422,
      detail: 'The body has errors.',
      code: 'validation_failed',
      instance: '/api/v1/x',
      request_id: 'req-1',
      limit: 3,
      errors: [{ pointer: '/name', code: 'required', detail: 'is required' }],
    });
  });
});

describe('internalError', () => {
  it('is a 500 that says nothing of the cause', () => {
    expect(internalError()).toMatchObject({ status: 500, code: 'internal_error', message: expect.stringContaining('Quote the request id') });
  });
});
