import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../lib/errors.js';
import { readJsonBody } from '../../../lib/domain/json-body.js';

const read = (text: string) => readJsonBody(Buffer.from(text, 'utf8'));

/** The problem readJsonBody throws for a body, with its detail. */
function refusal(text: string): { status: number; code: string; detail: string } {
  try {
    read(text);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.status, code: error.code, detail: error.message };
  }
  throw new Error('the body was read');
}

describe('readJsonBody', () => {
  it('reads a body whose objects each name a key once', () => {
    expect(read('{"name":"A","owner":{"name":"B"},"rows":[{"name":"C"},{"name":"D"}]}')).toEqual({
      name: 'A',
      owner: { name: 'B' },
      rows: [{ name: 'C' }, { name: 'D' }],
    });
  });

  it('refuses a top-level key given twice as 400 malformed_json, naming the key and its pointer', () => {
    expect(refusal('{"name":"A","timezone":"UTC","name":"B"}')).toEqual({
      status: 400,
      code: 'malformed_json',
      detail: expect.stringMatching(/the key "name" twice .*\(\/name\)/),
    });
  });

  it('refuses a key given twice with the same value', () => {
    expect(refusal('{"name":"A","name":"A"}')).toMatchObject({ status: 400, code: 'malformed_json' });
  });

  it('refuses a key given twice deep in the body, by its pointer', () => {
    expect(refusal('{"rows":[{"a":1},{"data":{"asset/tag":"x","asset/tag":"y"}}]}').detail).toContain('(/rows/1/data/asset~1tag)');
  });

  it('compares keys after their escapes, as JSON.parse does', () => {
    expect(refusal('{"name":"A","n\\u0061me":"B"}').detail).toContain('"name"');
  });

  it('refuses __proto__ given twice, which JSON.parse keeps as an own property', () => {
    expect(refusal('{"__proto__":{},"__proto__":{"admin":true}}')).toMatchObject({ status: 400, code: 'malformed_json' });
  });

  it('refuses text that is not JSON as 400 malformed_json', () => {
    expect(refusal('{"name":"A",}')).toEqual({ status: 400, code: 'malformed_json', detail: 'The request body is not valid JSON.' });
  });

  it('refuses bytes that are not UTF-8 as 400 malformed_json', () => {
    expect(() => readJsonBody(Buffer.from([0x22, 0xe9, 0x22]))).toThrow(expect.objectContaining({ status: 400, code: 'malformed_json' }));
  });

  it('refuses a body nested past 32 levels as 422 too_deep, before the key scan recurses into it', () => {
    const deep = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`;
    expect(() => read(deep)).toThrow(expect.objectContaining({ status: 422, extra: { errors: [expect.objectContaining({ code: 'too_deep' })] } }));
  });
});
