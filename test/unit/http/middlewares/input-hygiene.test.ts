import { describe, expect, it } from 'vitest';
import type { FieldError } from '../../../../lib/errors.js';
import { validate } from '../../../../lib/http/middlewares/validate.js';
import type { AnyOperation } from '../../../../lib/operations/kernel/operation.js';
import { createOrganisation, listOrganisations } from '../../../../lib/operations/organisations/organisations.js';
import { createSystemRegisterRow } from '../../../../lib/operations/registers/rows.js';
import { uploadOrganisationLogo } from '../../../../lib/operations/organisations/logo.js';
import { pipelineRequest } from '../../../support/pipeline.js';

const step = validate();
const ULID = '01JD3Q5Z8X6Y7W2V9T4S3R2P1N';
const op = (o: unknown) => o as AnyOperation;

/** The problem the step throws: status, code and field errors. */
async function refusal(request: ReturnType<typeof pipelineRequest>): Promise<{ status: number; code: string; errors?: FieldError[] }> {
  try {
    await step.before!(request);
  } catch (error) {
    const e = error as { status: number; code: string; extra: { errors?: FieldError[] } };
    return { status: e.status, code: e.code, errors: e.extra.errors };
  }
  throw new Error('the step accepted the request');
}

const json = (operation: unknown, body: string | Buffer, rawParams: Record<string, string> = {}) => {
  const request = pipelineRequest({ method: 'POST', operation: op(operation), headers: { 'Content-Type': 'application/json' }, state: { rawParams } });
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  request.event.body = bytes.toString('base64');
  request.event.isBase64Encoded = true;
  return request;
};

describe('JSON bodies', () => {
  it('are 400 malformed_json when they are not UTF-8', async () => {
    const body = Buffer.concat([Buffer.from('{"name":"Caf'), Buffer.from([0xe9]), Buffer.from('","timezone":"UTC"}')]);
    expect(await refusal(json(createOrganisation, body))).toMatchObject({ status: 400, code: 'malformed_json' });
  });

  it('are 400 malformed_json for UTF-8-encoded surrogates (CESU-8)', async () => {
    const body = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('","timezone":"UTC"}')]);
    expect(await refusal(json(createOrganisation, body))).toMatchObject({ status: 400, code: 'malformed_json' });
  });

  it('are 400 malformed_json when an object names a key twice, instead of keeping the last', async () => {
    const res = await refusal(
      json(createSystemRegisterRow, '{"data":{"name":"Server","name":"Other"}}', { organisation: ULID, system: ULID, definition: ULID }),
    );
    expect(res).toMatchObject({ status: 400, code: 'malformed_json' });
  });

  it('refuse a lone surrogate sent as a JSON escape, by pointer', async () => {
    const res = await refusal(json(createOrganisation, '{"name":"A\\ud800","timezone":"UTC"}'));
    expect(res).toMatchObject({ status: 422, errors: [{ pointer: '/name', code: 'forbidden_character' }] });
  });

  it('refuse a top-level __proto__ member with its pointer', async () => {
    const res = await refusal(json(createOrganisation, '{"name":"A","timezone":"UTC","__proto__":{"admin":true}}'));
    expect(res).toMatchObject({ status: 422, errors: [{ pointer: '/__proto__', code: 'unrecognized_property' }] });
  });

  it('refuse a __proto__ member inside register row data, where a record would drop it', async () => {
    const res = await refusal(json(createSystemRegisterRow, '{"data":{"__proto__":{"x":1}}}', { organisation: ULID, system: ULID, definition: ULID }));
    expect(res).toMatchObject({ status: 422, errors: [{ pointer: '/data/__proto__', code: 'unrecognized_property' }] });
  });

  it.each(['constructor', 'prototype'])('refuse a %s member like any other unknown property', async (key) => {
    const res = await refusal(json(createOrganisation, `{"name":"A","timezone":"UTC","${key}":{}}`));
    expect(res.errors).toEqual([expect.objectContaining({ pointer: `/${key}`, code: 'unrecognized_property' })]);
  });
});

describe('page parameters', () => {
  it.each(['1e2', '0x10', ' 5', '+5', '5.0', '-1', '', '٥'])('refuse page[size]=%j', async (value) => {
    const res = await refusal(pipelineRequest({ operation: op(listOrganisations), query: { 'page[size]': value } }));
    expect(res).toMatchObject({ status: 422, errors: [expect.objectContaining({ pointer: '/query/page[size]' })] });
  });

  it('take decimal digits, leading zeros included', async () => {
    const request = pipelineRequest({ operation: op(listOrganisations), query: { 'page[number]': '007', 'page[size]': '100' } });
    await step.before!(request);
    expect(request.state.page).toEqual({ number: 7, size: 100 });
  });

  it('refuse a page number beyond the safe integers', async () => {
    const res = await refusal(pipelineRequest({ operation: op(listOrganisations), query: { 'page[number]': '9'.repeat(20) } }));
    expect(res).toMatchObject({ status: 422 });
  });
});

describe('query parameters', () => {
  it('refuse ?__proto__ as an unknown parameter', async () => {
    const query = JSON.parse('{"__proto__":"x"}') as Record<string, string>;
    const res = await refusal(pipelineRequest({ operation: op(listOrganisations), query }));
    expect(res).toMatchObject({ status: 422, errors: [{ pointer: '/query/__proto__', code: 'unrecognized_parameter' }] });
  });
});

describe('multipart forms', () => {
  const upload = async (fd: FormData) => {
    const encoded = new Response(fd);
    const request = pipelineRequest({
      method: 'POST',
      operation: op(uploadOrganisationLogo),
      headers: { 'Content-Type': encoded.headers.get('content-type')! },
      state: { rawParams: { organisation: ULID } },
    });
    request.event.body = Buffer.from(await encoded.arrayBuffer()).toString('base64');
    request.event.isBase64Encoded = true;
    return refusal(request);
  };

  it('refuse a field named __proto__', async () => {
    const fd = new FormData();
    fd.set('upload_session', ULID);
    fd.set('__proto__', 'x');
    expect(await upload(fd)).toMatchObject({ status: 422, errors: [{ pointer: '/__proto__', code: 'unrecognized_property' }] });
  });

  it('refuse a file name with a right-to-left override', async () => {
    const fd = new FormData();
    fd.set('file', new Blob([Buffer.from('x')], { type: 'image/png' }), 'logo\u202Egnp.exe');
    expect(await upload(fd)).toMatchObject({ status: 422, errors: [{ pointer: '/file/file_name', code: 'forbidden_character' }] });
  });
});
