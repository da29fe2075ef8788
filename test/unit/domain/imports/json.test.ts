import { describe, expect, it } from 'vitest';
import { eachEntry, firstIssue, jsonOf } from '../../../../lib/domain/imports/json.js';
import { LIMITS } from '../../../../lib/domain/imports/rows.js';
import { buildImportedRow } from '../../../support/factories.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('jsonOf', () => {
  it('reads UTF-8 JSON, with or without a byte order mark', () => {
    expect([jsonOf(bytes('{"a":1}')), jsonOf(bytes('\uFEFF[2]'))]).toEqual([{ a: 1 }, [2]]);
  });

  it('refuses text that is not JSON, and bytes that are not UTF-8, as malformed_json', () => {
    expect(() => jsonOf(bytes('{'))).toThrow(expect.objectContaining({ code: 'malformed_json' }));
    expect(() => jsonOf(new Uint8Array([0x7b, 0xff, 0x7d]))).toThrow(expect.objectContaining({ code: 'malformed_json' }));
  });
});

describe('eachEntry', () => {
  it('imports the readable entries and reports the others by 1-based position', () => {
    const parsed = eachEntry(['ok', 'bad', 'ok'], (entry, n) => (entry === 'ok' ? buildImportedRow({ row: n, control_id: `ism-000${n}` }) : 'is not readable'));
    expect(parsed.rows.map((r) => r.row)).toEqual([1, 3]);
    expect(parsed.errors).toEqual([{ row: 2, reason: 'is not readable' }]);
  });

  it(`refuses more than ${LIMITS.rows} entries whole`, () => {
    expect(() => eachEntry(Array.from({ length: LIMITS.rows + 1 }), () => 'x')).toThrow(expect.objectContaining({ code: 'too_many_rows' }));
  });
});

describe('firstIssue', () => {
  it('names where the first issue is, and an unknown property by name', () => {
    expect(firstIssue([{ path: ['controls', 0, 'id'], message: 'Required', code: 'invalid_type' }])).toBe('controls.0.id: Required');
    expect(firstIssue([{ path: [], message: 'x', code: 'unrecognized_keys', keys: ['extra'] }])).toBe('unknown property extra');
  });

  it('has a reason for a parse without issues', () => {
    expect(firstIssue([])).toBe('is not readable');
  });
});
