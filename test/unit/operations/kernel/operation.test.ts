import { describe, expect, it } from 'vitest';
import { authenticate } from '../../../../lib/http/middlewares/authenticate.js';
import { preconditions } from '../../../../lib/http/middlewares/preconditions.js';
import { ingressLimit } from '../../../../lib/http/middlewares/rate-limit.js';
import { validate } from '../../../../lib/http/middlewares/validate.js';
import * as z from 'zod';
import { declarationsOf, derivedErrors, type AnyOperation } from '../../../../lib/operations/kernel/operation.js';
import { OPERATIONS } from '../../../../lib/operations/registry.js';
import type { PipelineRequest } from '../../../../lib/http/state.js';
import { pipelineRequest, thrownBy } from '../../../support/pipeline.js';

const ULID = '01JD3Q5Z8X6Y7W2V9T4S3R2P1N';

/** Every path parameter of this API takes a ULID, so one value gets any operation past path validation. */
const paramsOf = (op: AnyOperation) => Object.fromEntries([...op.path.matchAll(/\{(\w+)\}/g)].map((m) => [m[1]!, ULID]));

const requestTo = (op: AnyOperation, options: { headers?: Record<string, string>; body?: string } = {}) =>
  pipelineRequest({ method: op.method, operation: op, headers: options.headers, body: options.body, state: { rawParams: paramsOf(op) } });

/** What a step answers for each operation, beside what the derivation declares for it. */
async function answers(ops: readonly AnyOperation[], run: (op: AnyOperation) => Promise<{ status: number } | undefined>) {
  return Promise.all(
    ops.map(async (op) => {
      const status = (await run(op))?.status;
      return { id: op.id, status, declared: status !== undefined && derivedErrors(op).includes(status) };
    }),
  );
}

const withBody = OPERATIONS.filter((op) => op.body);
const contentTypeOf = (op: AnyOperation) => (op.body?.mediaType === 'multipart/form-data' ? 'multipart/form-data; boundary=x' : op.body!.mediaType);

describe('derivedErrors', () => {
  it('declares the 400 the validate step answers to a body that cannot be read, on every operation that takes one', async () => {
    const step = validate();
    const found = await answers(withBody, (op) => thrownBy(() => step.before!(requestTo(op, { headers: { 'Content-Type': contentTypeOf(op) }, body: '{' }))));
    expect(found).toEqual(withBody.map((op) => ({ id: op.id, status: 400, declared: true })));
  });

  it('declares the 415 the validate step answers to a body of another media type', async () => {
    const step = validate();
    const found = await answers(withBody, (op) => thrownBy(() => step.before!(requestTo(op, { headers: { 'Content-Type': 'text/plain' }, body: 'x' }))));
    expect(found).toEqual(withBody.map((op) => ({ id: op.id, status: 415, declared: true })));
  });

  it('declares the 422 the validate step answers to a repeated query parameter, on every operation', async () => {
    const step = validate();
    const found = await answers(OPERATIONS, (op) => {
      const request = requestTo(op);
      request.event.queryStringParameters = { x: '2' };
      request.event.multiValueQueryStringParameters = { x: ['1', '2'] };
      return thrownBy(() => step.before!(request));
    });
    expect(found).toEqual(OPERATIONS.map((op) => ({ id: op.id, status: 422, declared: true })));
  });

  it('declares the 428 the preconditions step answers without If-Match', async () => {
    const step = preconditions();
    const ops = OPERATIONS.filter((op) => op.ifMatch);
    const found = await answers(ops, (op) => thrownBy(() => step.before!(requestTo(op, { headers: { 'Idempotency-Key': 'k' } }))));
    expect(found).toEqual(ops.map((op) => ({ id: op.id, status: 428, declared: true })));
  });

  it('declares the 400 the preconditions step answers without an Idempotency-Key', async () => {
    const step = preconditions();
    const ops = OPERATIONS.filter((op) => op.idempotencyKey);
    const found = await answers(ops, (op) => thrownBy(() => step.before!(requestTo(op, { headers: { 'If-Match': '"1-x"' } }))));
    expect(found).toEqual(ops.map((op) => ({ id: op.id, status: 400, declared: true })));
  });

  it('declares the 401 the authentication step answers without a credential, on every operation', async () => {
    const step = authenticate();
    const found = await answers(OPERATIONS, (op) => thrownBy(() => step.before!(requestTo(op))));
    expect(found).toEqual(OPERATIONS.map((op) => ({ id: op.id, status: 401, declared: true })));
  });

  it('declares the 429 the ingress budget answers, on every operation', async () => {
    const step = ingressLimit();
    const spent = (request: PipelineRequest) => {
      request.state.budgets = [{ budget: 'ingress', count: 2, limit: 1, resetSeconds: 5 }];
      return request;
    };
    const found = await answers(OPERATIONS, (op) => thrownBy(() => step.before!(spent(requestTo(op)))));
    expect(found).toEqual(OPERATIONS.map((op) => ({ id: op.id, status: 429, declared: true })));
  });

  it('leaves out of every declaration the statuses it derives', () => {
    const repeated = OPERATIONS.filter((op) => op.errors.some((status) => derivedErrors(op).includes(status))).map((op) => op.id);
    expect(repeated).toEqual([]);
  });
});

describe('declarationsOf', () => {
  const declare = declarationsOf('evidence');
  /** A schema builder that records its call. */
  const recorded =
    <S>(built: string[], name: string, schema: () => S) =>
    () => {
      built.push(name);
      return schema();
    };
  const declaration = (built: string[]) => ({
    id: 'probe',
    method: 'POST' as const,
    path: '/probe',
    summary: 'A probe.',
    credential: ['project' as const],
    permission: {},
    success: 200 as const,
    params: recorded(built, 'params', () => z.strictObject({ id: z.string() })),
    query: z.strictObject({}),
    body: { schema: recorded(built, 'body', () => z.strictObject({ name: z.string() })), mediaType: 'application/json' as const },
    response: recorded(built, 'response', () => z.object({ id: z.string() })),
    sideEffects: [],
    handle: async () => ({ data: { id: 'x' } }),
  });

  it('builds no deferred schema when the operation is declared', () => {
    const built: string[] = [];
    declare(declaration(built));
    expect(built).toEqual([]);
  });

  it('builds a deferred schema at its first read, once, and answers the same instance after', () => {
    const built: string[] = [];
    const op = declare(declaration(built));
    const first = op.params;
    expect(op.params).toBe(first);
    expect(op.body!.schema).toBe(op.body!.schema);
    expect(built).toEqual(['params', 'body']);
  });

  it('takes a schema given as it is unchanged', () => {
    const query = z.strictObject({});
    const op = declare({ ...declaration([]), query });
    expect(op.query).toBe(query);
  });
});
