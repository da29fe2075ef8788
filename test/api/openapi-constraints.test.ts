import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { newUlid } from '../../lib/domain/ids.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../lib/operations/kernel/openapi.js';
import type { AnyOperation } from '../../lib/operations/kernel/operation.js';
import { OPERATIONS } from '../../lib/operations/registry.js';
import { startForEveryOperation } from '../support/every-operation.js';

/*
 * The document against the server: for each constraint the document states on a parameter or a
 * body property, a value outside it is refused with 422 naming that place, and a value inside it is
 * not refused there. The values come from the document, not from the schemas behind it. No answer
 * looked at depends on another case's requests, and each case mostly waits on the emulator: the
 * cases of an operation sweep run a few at a time.
 */

type Json = Record<string, any>;

const doc = buildOpenApi(OPERATIONS) as Json;
let every: Awaited<ReturnType<typeof startForEveryOperation>>;

beforeAll(async () => {
  every = await startForEveryOperation();
});
afterAll(() => every.api.stop());

const ajv = new Ajv2020({ strict: false });
ajv.addSchema(doc, 'document');
/**
 * Ajv keeps what it compiled by schema object, and the document gives each operation's parameters
 * objects of their own: 322 of them hold 15 distinct schemas, each compiled once here.
 */
const compiled = new Map<string, ValidateFunction>();
const accepts = (schema: Json, value: unknown) => {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) compiled.set(key, (validate = ajv.compile(schema)));
  return validate(value) as boolean;
};
const jsonPointer = (...segments: string[]) => segments.map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
const resolve = (schema: Json): Json => (schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema);
const entryOf = (op: AnyOperation): Json => doc.paths[op.path][op.method.toLowerCase()];
const errorsAt = (body: Json | undefined, pointer: string) => ((body?.errors ?? []) as Json[]).filter((e) => e.pointer === pointer);

/** The string a schema takes, through a nullable anyOf; undefined when it takes none. */
const stringIn = (schema: Json): Json | undefined => {
  const s = resolve(schema);
  return s.type === 'string' ? s : (s.anyOf ?? []).map(resolve).find((m: Json) => m.type === 'string');
};

const constrained = (schema: Json) =>
  (schema.pattern !== undefined || schema.enum !== undefined || (schema.type === 'integer' && schema.maximum !== undefined)) && schema.const === undefined;

/** Candidates for each class the document states: letter case, blank, an inner space, an unknown name, a number past a bound. */
function outside(schema: Json): string[] {
  if (schema.type === 'integer') return [String(schema.minimum - 1), String(schema.maximum + 1)];
  return [newUlid().toLowerCase(), '   ', 'A B', 'no-such-value', '1/2'].filter((v) => !accepts(schema, v));
}

function inside(schema: Json): string[] {
  if (schema.type === 'integer') return [String(schema.minimum), String(schema.maximum)];
  if (schema.enum) return schema.enum;
  const first = [...(schema.examples ?? []), newUlid(), '1', 'Some text'].find((v) => accepts(schema, v));
  return first === undefined ? [] : [first];
}

it('is the document the server serves', async () => {
  expect((await every.api.request('GET', '/api/v1/openapi.json')).body).toEqual(JSON.parse(JSON.stringify(doc)));
});

describe('path parameters', () => {
  it('are ULIDs, by pattern, except an evidence version number', () => {
    const params = OPERATIONS.flatMap((op) => (entryOf(op).parameters as Json[]).filter((p) => p.in === 'path' && p.name !== 'version'));
    expect(params.length).toBeGreaterThan(200);
    for (const p of params) {
      const pattern = new RegExp(p.schema.pattern, 'u');
      const verdicts = { upper: pattern.test(newUlid()), lower: pattern.test(newUlid().toLowerCase()), letterI: pattern.test('01JD3Q5Z8X6Y7W2V9T4S3R2P1I') };
      expect({ name: p.name, ...verdicts }).toEqual({ name: p.name, upper: true, lower: false, letterI: false });
    }
  });
});

const checkedParameters = (op: AnyOperation) =>
  (entryOf(op).parameters as Json[]).filter((p) => (p.in === 'path' || p.in === 'query') && constrained(p.schema));

/**
 * The k-th value of each list, side by side: one request carries a value of every parameter (or
 * property) at once. The server names every offence of a request (validation reports them all), so
 * a value is still seen refused, or not refused, at its own place; requests fall from the sum of the
 * values to the longest list.
 */
function abreast<T>(lists: T[][]): T[][] {
  const longest = Math.max(0, ...lists.map((l) => l.length));
  return Array.from({ length: longest }, (_, k) => lists.flatMap((l) => (k < l.length ? [l[k]!] : [])));
}

describe('a parameter value outside what the document states', () => {
  const cases = OPERATIONS.filter((op) => checkedParameters(op).length > 0).map((op) => [op.id, op] as const);
  it.concurrent.for(cases)('%s: is refused with 422 naming it; a value inside is not refused there', async ([_id, op], { expect }) => {
    const send = (values: { p: Json; value: string }[]) => {
      const path = Object.fromEntries(values.filter(({ p }) => p.in === 'path').map(({ p, value }) => [p.name, value]));
      const query = values.filter(({ p }) => p.in === 'query').map(({ p, value }) => `${encodeURIComponent(p.name)}=${encodeURIComponent(value)}`);
      return every.api.request(op.method, every.pathOf(op, path) + (query.length ? `?${query.join('&')}` : ''), { token: every.tokenOf(op) });
    };
    // The boundary compares the bound organisation or project before anything is validated: its
    // values go alone. Path parameters are validated before the query, which waits for them to pass.
    const bound = (p: Json) => p.in === 'path' && p.name === every.boundParameter(op);
    const params = checkedParameters(op);
    for (const group of [params.filter(bound), params.filter((p) => p.in === 'path' && !bound(p)), params.filter((p) => p.in === 'query')]) {
      for (const values of abreast(group.map((p) => outside(p.schema).map((value) => ({ p, value }))))) {
        const res = await send(values);
        for (const { p, value } of values) {
          const pointer = `/${p.in}/${p.name}`;
          if (bound(p)) expect({ pointer, value, status: res.status }).toEqual({ pointer, value, status: 404 });
          else
            expect({ pointer, value, status: res.status, named: errorsAt(res.body, pointer).length > 0 }).toEqual({ pointer, value, status: 422, named: true });
        }
      }
      for (const values of abreast(group.map((p) => inside(p.schema).map((value) => ({ p, value }))))) {
        const res = await send(values);
        for (const { p, value } of values) {
          const pointer = `/${p.in}/${p.name}`;
          expect({ pointer, value, errors: errorsAt(res.body, pointer) }).toEqual({ pointer, value, errors: [] });
        }
      }
    }
  });
});

/** A body's variants (the branches of a oneOf), each with the constant properties that select it. */
function variants(schema: Json): { base: Json; properties: Record<string, Json> }[] {
  const s = resolve(schema);
  return (s.oneOf ?? [s]).map(resolve).map((v: Json) => {
    const properties = (v.properties ?? {}) as Record<string, Json>;
    const base = Object.fromEntries(Object.entries(properties).flatMap(([k, p]) => (resolve(p).const === undefined ? [] : [[k, resolve(p).const]])));
    return { base, properties };
  });
}

const jsonBodyOf = (op: AnyOperation): Json | undefined => {
  const mediaType = op.body?.mediaType;
  return mediaType && mediaType !== 'multipart/form-data' ? resolve(entryOf(op).requestBody.content[mediaType].schema) : undefined;
};

const checkedProperties = (op: AnyOperation) => {
  const body = jsonBodyOf(op);
  if (!body) return [];
  return variants(body).flatMap(({ base, properties }) =>
    Object.entries(properties).flatMap(([name, property]) => {
      const schema = stringIn(property);
      return schema && constrained(schema) ? [{ base, name, schema }] : [];
    }),
  );
};

/** The refusals of the schema (a handler may refuse a well-formed value at the same place for reasons of its own). */
const SCHEMA_CODES = new Set(['invalid_format', 'invalid_value', 'too_big', 'too_small', 'invalid_type', 'custom']);

describe('a body property outside what the document states', () => {
  const cases = OPERATIONS.filter((op) => checkedProperties(op).length > 0).map((op) => [op.id, op] as const);
  it.concurrent.for(cases)('%s: is refused with 422 naming it; a value inside is not refused there', async ([_id, op], { expect }) => {
    const send = (body: Json) =>
      every.api.request(op.method, every.pathOf(op), { token: every.tokenOf(op), body, headers: { 'Content-Type': op.body!.mediaType } });
    const properties = checkedProperties(op);
    // Each variant's properties go together, on the constants that select that variant.
    for (const base of new Set(properties.map((p) => p.base))) {
      const own = properties.filter((p) => p.base === base);
      for (const values of abreast(own.map(({ name, schema }) => outside(schema).map((value) => ({ name, value }))))) {
        const res = await send({ ...base, ...Object.fromEntries(values.map(({ name, value }) => [name, value])) });
        for (const { name, value } of values) {
          const pointer = `/${name}`;
          expect({ pointer, value, status: res.status, errors: errorsAt(res.body, pointer).length }).toEqual({ pointer, value, status: 422, errors: 1 });
        }
      }
      for (const values of abreast(own.map(({ name, schema }) => inside(schema).map((value) => ({ name, value }))))) {
        const res = await send({ ...base, ...Object.fromEntries(values.map(({ name, value }) => [name, value])) });
        for (const { name, value } of values) {
          const pointer = `/${name}`;
          expect({ pointer, value, errors: errorsAt(res.body, pointer).filter((e) => SCHEMA_CODES.has(e.code)) }).toEqual({ pointer, value, errors: [] });
        }
      }
    }
  });
});

describe('a merge patch', () => {
  const patches = OPERATIONS.filter((op) => op.body?.mediaType === 'application/merge-patch+json');

  it('requires a property in the document, in the body or in its data object', () => {
    expect(patches.length).toBeGreaterThan(10);
    for (const op of patches) {
      const body = jsonBodyOf(op)!;
      const data = body.properties?.data && resolve(body.properties.data);
      expect({ op: op.id, minProperties: body.minProperties ?? data?.minProperties }).toEqual({ op: op.id, minProperties: 1 });
    }
  });

  it.concurrent.for(patches.map((op) => [op.id, op] as const))(
    '%s: answers 422 to what the document refuses as changing nothing',
    async ([_id, op], { expect }) => {
      const body = jsonBodyOf(op)!;
      // The body's schema where the document states it, its references resolved in the document.
      const documentAccepts = ajv.getSchema(
        `document#/${jsonPointer('paths', op.path, op.method.toLowerCase(), 'requestBody', 'content', op.body!.mediaType, 'schema')}`,
      )!;
      const empty = body.minProperties ? {} : { data: {} };
      const besides = (body.not?.propertyNames?.enum ?? []) as string[];
      for (const refused of [empty, ...besides.map((name) => ({ [name]: 'Because the target changed' }))]) {
        expect(documentAccepts(refused)).toBe(false);
        const res = await every.api.request(op.method, every.pathOf(op), { token: every.tokenOf(op), body: refused });
        const pointer = body.minProperties ? '' : '/data';
        expect({ refused, status: res.status, errors: errorsAt(res.body, pointer).length }).toEqual({ refused, status: 422, errors: 1 });
      }
    },
  );
});

describe('an upload form', () => {
  const forms = OPERATIONS.filter((op) => op.body?.mediaType === 'multipart/form-data');
  const formOf = (op: AnyOperation) => entryOf(op).requestBody.content['multipart/form-data'].schema as Json;
  const file = () => new Blob([Buffer.from('%PDF-1.4\n')], { type: 'application/pdf' });

  it.concurrent.for(forms.map((op) => [op.id, op] as const))('%s: takes exactly one of its file sources, as its oneOf says', async ([_id, op], { expect }) => {
    const sources = (formOf(op).oneOf as { required: string[] }[]).map((o) => o.required[0]!);
    expect(sources.slice(0, 2)).toEqual(['file', 'upload_session']);
    const form = (names: string[]) => {
      const f = new FormData();
      for (const name of names) {
        if (name === 'file') f.append('file', file(), 'x.pdf');
        else if (name === 'url') f.append('url', 'https://example.com/x.pdf');
        else f.append(name, newUlid());
      }
      return f;
    };
    for (const names of [[], ['file', 'upload_session']]) {
      const res = await every.api.request(op.method, every.pathOf(op), { token: every.tokenOf(op), form: form(names) });
      expect({ names, status: res.status, errors: errorsAt(res.body, '/file').length }).toEqual({ names, status: 422, errors: 1 });
    }
    for (const name of sources) {
      const res = await every.api.request(op.method, every.pathOf(op), { token: every.tokenOf(op), form: form([name]) });
      expect({ name, errors: errorsAt(res.body, '/file').filter((e) => e.code === 'custom') }).toEqual({ name, errors: [] });
    }
  });
});
