import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUlid } from '../../lib/domain/ids.js';
import { REGISTER_DEFINITION_IDS as IDS } from '../../lib/domain/registers.js';
import { fixtures, startApi, type Api } from '../support/api.js';

let api: Api;
let op: Awaited<ReturnType<typeof fixtures.operator>>;
let system: string;

const systems = () => `/api/v1/organisations/${op.organisationId}/systems`;
const assets = () => `${systems()}/${system}/registers/${IDS.assetRegister}/rows`;
const post = (path: string, body: unknown) => api.request('POST', path, { token: op.org, body, headers: { 'Idempotency-Key': newUlid() } });
/** A body exactly as written, since JSON.stringify of an object would not keep every key this test needs. */
const postRaw = (path: string, json: string) =>
  api.request('POST', path, { token: op.org, rawBody: json, headers: { 'Content-Type': 'application/json', 'Idempotency-Key': newUlid() } });

beforeAll(async () => {
  api = await startApi();
  op = await fixtures.operator();
  system = (await post(systems(), { name: 'Hygiene', short_code: 'HYG' })).body.data.id;
});
afterAll(() => api.stop());

describe('text', () => {
  it('refuses a name with a right-to-left override (422, pointer and code)', async () => {
    const res = await post(systems(), { name: 'Payroll\u202Etxt.exe', short_code: 'RLO' });
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/name', code: 'forbidden_character' })]);
  });

  it('keeps a tab and newlines in a description', async () => {
    const description = 'Hosts payroll.\n\tTwo sites:\r\nSydney and Perth.';
    const res = await post(systems(), { name: 'Multi-line', short_code: 'MLT', description });
    expect(res.status).toBe(201);
    expect((await api.request('GET', `${systems()}/${res.body.data.id}`, { token: op.org })).body.data.description).toBe(description);
  });

  it('refuses a bell character in a description, by pointer', async () => {
    const res = await post(systems(), { name: 'Bell', short_code: 'BEL', description: 'ding\u0007' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/description', code: 'forbidden_character' })]);
  });

  it('refuses a right-to-left mark in a contact name (422, pointer and code)', async () => {
    const res = await post(`${systems()}/${system}/contacts`, { name: 'Ada\u200F Lovelace' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/name', code: 'forbidden_character' })]);
  });

  it('refuses a C1 next-line character (U+0085) in a description', async () => {
    const res = await post(systems(), { name: 'Next line', short_code: 'NEL', description: 'one\u0085two' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/description', code: 'forbidden_character' })]);
  });

  it('keeps the right-to-left and Arabic letter marks in a description', async () => {
    const description = 'نظام الرواتب\u061C 2\u200F\nשכר';
    const res = await post(systems(), { name: 'Right to left', short_code: 'RTL', description });
    expect(res.status).toBe(201);
    expect((await api.request('GET', `${systems()}/${res.body.data.id}`, { token: op.org })).body.data.description).toBe(description);
  });

  it('refuses an Arabic letter mark in a single-line register row value', async () => {
    const res = await post(assets(), { data: { asset_tag: 'A-2\u061C', name: 'Server' } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/data/asset_tag', code: 'forbidden_character' })]);
  });

  it('refuses a control character in a register row value, by pointer', async () => {
    const res = await post(assets(), { data: { asset_tag: 'A-1\u0000', name: 'Server' } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/data/asset_tag', code: 'forbidden_character' })]);
  });
});

describe('page parameters', () => {
  it.each(['1e2', '0x10', '+5', '5.0'])('refuse page[size]=%s (422)', async (value) => {
    const res = await api.request('GET', `${systems()}?page[size]=${encodeURIComponent(value)}`, { token: op.org });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/query/page[size]' })]);
  });

  it('take decimal digits', async () => {
    const res = await api.request('GET', `${systems()}?page[size]=2`, { token: op.org });
    expect(res.status).toBe(200);
    expect(res.body.meta.page_size).toBe(2);
  });
});

describe('encoding', () => {
  it('answers 400 malformed_json for a body that is not UTF-8', async () => {
    const body = Buffer.concat([Buffer.from('{"name":"Caf'), Buffer.from([0xe9]), Buffer.from('","short_code":"CAF"}')]);
    const res = await fetch(api.base + systems(), {
      method: 'POST',
      body,
      headers: { Authorization: `Bearer ${op.org}`, 'Content-Type': 'application/json', 'Idempotency-Key': newUlid() },
    });
    const problem = (await res.json()) as { code: string; request_id: string };
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(problem.code).toBe('malformed_json');
    expect(res.headers.get('x-request-id')).toBe(problem.request_id);
  });
});

describe('duplicate keys', () => {
  it('answer 400 malformed_json naming the key, and store nothing', async () => {
    const res = await postRaw(systems(), '{"name":"Twice","short_code":"TWC","name":"Twice again"}');
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.body).toMatchObject({ code: 'malformed_json', detail: expect.stringContaining('"name"') });
    const listed = await api.request('GET', `${systems()}?page[size]=100`, { token: op.org });
    const codes = listed.body.data.map((s: { short_code: string }) => s.short_code);
    expect(codes).toContain('HYG');
    expect(codes).not.toContain('TWC');
  });
});

describe('unknown keys', () => {
  it('refuses __proto__ at the top of a body, with its pointer', async () => {
    const res = await postRaw(systems(), '{"name":"Proto","short_code":"PRO","__proto__":{"admin":true}}');
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/__proto__', code: 'unrecognized_property' })]);
  });

  it.each(['__proto__', 'constructor', 'prototype'])('refuses register row data with a %s key like any unknown column', async (key) => {
    const res = await postRaw(assets(), `{"data":{"asset_tag":"A-${key}","name":"Server","${key}":{"polluted":true}}}`);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: `/data/${key}`, code: 'unrecognized_property' })]);
  });

  it('refuses a __proto__ query parameter', async () => {
    const res = await api.request('GET', `${systems()}?__proto__=1`, { token: op.org });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/query/__proto__', code: 'unrecognized_parameter' })]);
  });
});
