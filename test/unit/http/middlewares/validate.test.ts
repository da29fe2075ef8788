import { describe, expect, it } from 'vitest';
import { validate } from '../../../../lib/http/middlewares/validate.js';
import { createOrganisation, getOrganisation, listOrganisations } from '../../../../lib/operations/organisations/organisations.js';
import type { AnyOperation } from '../../../../lib/operations/kernel/operation.js';
import { startPopulation } from '../../../../lib/operations/setup-projects/population.js';
import { pipelineRequest, thrownBy } from '../../../support/pipeline.js';

const step = validate();
const ULID = '01JD3Q5Z8X6Y7W2V9T4S3R2P1N';
const op = (o: unknown) => o as AnyOperation;

describe('validate step', () => {
  it('parses the body and reads the page from the query', async () => {
    const request = pipelineRequest({ operation: op(listOrganisations), query: { 'page[number]': '3', 'page[size]': '10' } });
    await step.before!(request);
    expect(request.state.page).toEqual({ number: 3, size: 10 });
  });

  it('throws 415 for another media type', async () => {
    const request = pipelineRequest({ method: 'POST', operation: op(createOrganisation), headers: { 'Content-Type': 'text/plain' }, body: '{}' });
    expect(await thrownBy(() => step.before!(request))).toMatchObject({ status: 415 });
  });

  it('accepts media type parameters such as charset', async () => {
    const request = pipelineRequest({
      method: 'POST',
      operation: op(createOrganisation),
      headers: { 'Content-Type': 'application/json; charset=utf-8' },
      body: '{"name":"A","timezone":"UTC"}',
    });
    await step.before!(request);
    expect(request.state.input?.body).toEqual({ name: 'A', timezone: 'UTC' });
  });

  it('throws 400 malformed_json for broken JSON', async () => {
    const request = pipelineRequest({ method: 'POST', operation: op(createOrganisation), headers: { 'content-type': 'application/json' }, body: '{' });
    expect(await thrownBy(() => step.before!(request))).toMatchObject({ status: 400, code: 'malformed_json' });
  });

  it('throws 422 for JSON nested deeper than any body of the API', async () => {
    const deep = '['.repeat(20_000) + ']'.repeat(20_000);
    const request = pipelineRequest({
      method: 'POST',
      operation: op(createOrganisation),
      headers: { 'content-type': 'application/json' },
      body: `{"name":${deep}}`,
    });
    expect(await thrownBy(() => step.before!(request))).toMatchObject({ status: 422 });
  });

  it('takes a missing body as {} where the empty object is the whole body', async () => {
    const request = pipelineRequest({
      method: 'POST',
      operation: op(startPopulation),
      state: { rawParams: { organisation: ULID, system: ULID, project: ULID } },
    });
    await step.before!(request);
    expect(request.state.input?.body).toEqual({});
  });

  it('still needs the body of an operation whose body has required members', async () => {
    const request = pipelineRequest({ method: 'POST', operation: op(createOrganisation) });
    expect(await thrownBy(() => step.before!(request))).toMatchObject({ status: 415 });
  });

  it('throws 400 for a missing body', async () => {
    const request = pipelineRequest({ method: 'POST', operation: op(createOrganisation), headers: { 'content-type': 'application/json' } });
    expect(await thrownBy(() => step.before!(request))).toMatchObject({ status: 400 });
  });

  it('throws 422 for a path identifier that is not a ULID', async () => {
    const request = pipelineRequest({ operation: op(getOrganisation), state: { rawParams: { organisation: 'abc' } } });
    expect(await thrownBy(() => step.before!(request))).toMatchObject({ status: 422, code: 'validation_failed' });
  });

  it('throws 422 for a repeated query parameter', async () => {
    const request = pipelineRequest({ operation: op(listOrganisations), query: { 'page[size]': '5' } });
    request.event.multiValueQueryStringParameters = { 'page[size]': ['5', '6'] };
    expect(await thrownBy(() => step.before!(request))).toMatchObject({ status: 422 });
  });

  it('throws 422 for a body sent to an operation that takes none', async () => {
    const request = pipelineRequest({
      method: 'DELETE',
      operation: { ...op(getOrganisation), method: 'DELETE' },
      state: { rawParams: { organisation: '01ARZ3NDEKTSV4RRFFQ69G5FAV' } },
      body: '{}',
    });
    expect(await thrownBy(() => step.before!(request))).toMatchObject({ status: 422 });
  });
});
