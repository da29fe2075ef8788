import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { rowBodySchema } from '../../../lib/domain/register-rows.js';
import { REGISTER_DEFINITIONS } from '../../../lib/domain/registers.js';
import { carriesTextRule, singleLine } from '../../../lib/domain/validation.js';
import { OPERATIONS } from '../../../lib/operations/registry.js';

/** zod's own formats whose patterns admit printable ASCII only. */
const ASCII_FORMATS = new Set(['date', 'datetime', 'email']);
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'nonoptional', 'catch']);
const LEAVES = new Set(['number', 'int', 'boolean', 'enum', 'literal', 'null', 'undefined', 'unknown', 'any', 'custom', 'transform', 'never']);

/** The paths of every string schema reachable from `schema` that bypasses the shared text rule. */
function bypasses(schema: z.ZodType, path = ''): string[] {
  const def = schema._zod.def as unknown as Record<string, any> & { type: string };
  if (def.type === 'string') return carriesTextRule(schema) || ASCII_FORMATS.has(def.format) ? [] : [path || '/'];
  if (WRAPPERS.has(def.type)) return bypasses(def.innerType, path);
  if (LEAVES.has(def.type)) return [];
  switch (def.type) {
    case 'object':
      return [
        ...Object.entries(def.shape as Record<string, z.ZodType>).flatMap(([k, v]) => bypasses(v, `${path}/${k}`)),
        ...(def.catchall ? bypasses(def.catchall, `${path}/*`) : []),
      ];
    case 'array':
      return bypasses(def.element, `${path}/0`);
    case 'record':
      return [...bypasses(def.keyType, `${path}/<key>`), ...bypasses(def.valueType, `${path}/*`)];
    case 'union':
      return (def.options as z.ZodType[]).flatMap((o) => bypasses(o, path));
    case 'intersection':
      return [...bypasses(def.left, path), ...bypasses(def.right, path)];
    case 'pipe':
      // What the caller sends is the input side, unless that side is a preprocessing transform.
      return bypasses(def.in._zod.def.type === 'transform' ? def.out : def.in, path);
    case 'lazy':
      return bypasses(def.getter(), path);
    default:
      throw new Error(`${path}: add zod type ${def.type} to this walk`);
  }
}

describe('every request string goes through the shared text rule', () => {
  it('finds a plain string that bypasses it', () => {
    expect(bypasses(z.strictObject({ a: singleLine(), b: z.array(z.string().max(3)).optional() }))).toEqual(['/b/0']);
  });

  it.each(OPERATIONS.map((op) => [op.id, op] as const))('%s: path, query and body', (_id, op) => {
    const found = [...bypasses(op.params, '/path'), ...bypasses(op.query, '/query'), ...(op.body ? bypasses(op.body.schema, '/body') : [])];
    expect(found).toEqual([]);
  });

  // Row bodies pass the registry's schema as a record of unknowns; the manifest's schema types them.
  it.each(REGISTER_DEFINITIONS.map((d) => [d.key, d] as const))('register %s: row data as the manifest validates it', (_key, d) => {
    expect([...bypasses(rowBodySchema(d, 'create')), ...bypasses(rowBodySchema(d, 'update'))]).toEqual([]);
  });
});
