import { describe, expect, it } from 'vitest';
import { preconditions } from '../../../../lib/http/middlewares/preconditions.js';
import { createOrganisation, updateOrganisation } from '../../../../lib/operations/organisations/organisations.js';
import type { AnyOperation } from '../../../../lib/operations/kernel/operation.js';
import { pipelineRequest, thrownBy } from '../../../support/pipeline.js';

const step = preconditions();
const run = (operation: unknown, headers: Record<string, string>) =>
  thrownBy(() => step.before!(pipelineRequest({ operation: operation as AnyOperation, headers })));

describe('preconditions step', () => {
  it('throws 428 when If-Match is missing where the catalogue needs it', async () => {
    expect(await run(updateOrganisation, {})).toMatchObject({ status: 428, code: 'if_match_required' });
  });

  it('passes with If-Match present, leaving its validation to the handler', async () => {
    expect(await run(updateOrganisation, { 'if-match': '"1-x"' })).toBeUndefined();
  });

  it.each([
    ['missing', {}],
    ['empty', { 'Idempotency-Key': '' }],
    ['256 characters', { 'Idempotency-Key': 'x'.repeat(256) }],
  ])('throws 400 for an Idempotency-Key that is %s', async (_label, headers) => {
    expect(await run(createOrganisation, headers)).toMatchObject({ status: 400, code: 'idempotency_key_invalid' });
  });

  it('accepts a 255-character Idempotency-Key', async () => {
    expect(await run(createOrganisation, { 'Idempotency-Key': 'x'.repeat(255) })).toBeUndefined();
  });
});
