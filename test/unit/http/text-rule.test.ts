import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { bodyErrors, multiLine, parameterErrors, singleLine } from '../../../lib/domain/validation.js';

const REFUSED_EVERYWHERE = [
  ['NUL', '\u0000'],
  ['BEL', '\u0007'],
  ['ESC', '\u001B'],
  ['unit separator', '\u001F'],
  ['DEL', '\u007F'],
  ['padding character (C1)', '\u0080'],
  ['next line (C1)', '\u0085'],
  ['application program command (C1)', '\u009F'],
  ['left-to-right embedding', '\u202A'],
  ['right-to-left override', '\u202E'],
  ['left-to-right isolate', '\u2066'],
  ['pop directional isolate', '\u2069'],
  ['lone high surrogate', '\uD800'],
  ['lone low surrogate', '\uDC00'],
  ['reversed surrogate pair', '\uDC00\uD800'],
] as const;

describe('singleLine', () => {
  it.each(REFUSED_EVERYWHERE)('refuses %s', (_name, char) => {
    expect(singleLine().safeParse(`a${char}b`).success).toBe(false);
  });

  it.each([
    ['tab', '\t'],
    ['line feed', '\n'],
    ['CR LF', '\r\n'],
    ['left-to-right mark', '\u200E'],
    ['right-to-left mark', '\u200F'],
    ['Arabic letter mark', '\u061C'],
  ])('refuses %s, which multi-line text keeps', (_name, char) => {
    expect(singleLine().safeParse(`a${char}b`).success).toBe(false);
  });

  it('accepts accents, CJK, emoji (a surrogate pair), right-to-left letters and U+00A0', () => {
    expect(singleLine().safeParse('Ærø 東京 \u{1F512} שלום مرحبا\u00A0!').success).toBe(true);
  });

  it('names the code point and where it is, with the stable code forbidden_character', () => {
    const result = z.strictObject({ name: singleLine() }).safeParse({ name: 'Invoice\u202Efdp.exe' });
    expect(bodyErrors(result.error!)).toEqual([{ pointer: '/name', code: 'forbidden_character', detail: expect.stringContaining('U+202E at character 8') }]);
  });

  it('keeps the checks chained after it', () => {
    expect(singleLine().trim().min(1).safeParse('   ').success).toBe(false);
  });

  it('reports a query parameter by name', () => {
    const result = z.strictObject({ q: singleLine() }).safeParse({ q: 'a\u0000' });
    expect(parameterErrors(result.error!, 'query')).toEqual([expect.objectContaining({ pointer: '/query/q', code: 'forbidden_character' })]);
  });
});

describe('multiLine', () => {
  it('accepts tab, line feed and CR LF', () => {
    expect(multiLine().safeParse('Line one\n\tLine two\r\nLine three').success).toBe(true);
  });

  it('accepts the marks U+200E, U+200F and U+061C that right-to-left text needs', () => {
    expect(multiLine().safeParse('Version 2.1\u200F שלום\nالعدد\u061C 3\u200E').success).toBe(true);
  });

  it('names the code point of a refused C1 control', () => {
    const result = z.strictObject({ notes: multiLine() }).safeParse({ notes: 'one\u0085two' });
    expect(bodyErrors(result.error!)).toEqual([{ pointer: '/notes', code: 'forbidden_character', detail: expect.stringContaining('U+0085 at character 4') }]);
  });

  it.each(REFUSED_EVERYWHERE)('refuses %s', (_name, char) => {
    expect(multiLine().safeParse(`a\n${char}b`).success).toBe(false);
  });

  it.each([
    ['a lone carriage return', '\r'],
    ['vertical tab', '\u000B'],
    ['form feed', '\u000C'],
  ])('refuses %s', (_name, char) => {
    expect(multiLine().safeParse(`a${char}b`).success).toBe(false);
  });
});
