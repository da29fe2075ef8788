import * as z from 'zod';
import type { FieldError } from '../errors.js';

/*
 * Text hygiene, one rule for every string a caller can send. C0 and C1 control characters (U+0085,
 * NEXT LINE, breaks lines that look whole), bidirectional embeddings, overrides and isolates (which
 * make text display as something else: "report\u202Efdp.exe" shows as "reportexe.pdf") and unpaired
 * surrogates (which UTF-8 cannot encode) are refused. A single line also refuses the bidirectional
 * marks (U+200E, U+200F, U+061C), invisible and never needed in a name or an identifier; text that
 * may span lines keeps them for right-to-left writing, and keeps tab, line feed and CR LF.
 */
const UNPAIRED_SURROGATE = '[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]';
const DEL_AND_C1 = '\\u007F-\\u009F';
const BIDI_MARK = '\\u061C\\u200E\\u200F';
const BIDI_CONTROL = '\\u202A-\\u202E\\u2066-\\u2069';
const SINGLE_LINE_REFUSED = new RegExp(`[\\u0000-\\u001F${DEL_AND_C1}${BIDI_MARK}${BIDI_CONTROL}]|${UNPAIRED_SURROGATE}`);
const MULTI_LINE_REFUSED = new RegExp(`[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F${DEL_AND_C1}${BIDI_CONTROL}]|\\r(?!\\n)|${UNPAIRED_SURROGATE}`);

/** The stable error code of a refused character, for clients that branch on it. */
const FORBIDDEN_CHARACTER = 'forbidden_character';

const codePoint = (s: string) => `U+${s.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;

function textRule(refused: RegExp, allowed: string) {
  return z.superRefine((value: string, ctx) => {
    const found = refused.exec(value);
    if (!found) return;
    ctx.addIssue({
      code: 'custom',
      message: `must not contain ${codePoint(found[0])} at character ${[...value.slice(0, found.index)].length + 1} (${allowed})`,
      params: { code: FORBIDDEN_CHARACTER },
    });
  });
}

const SINGLE_LINE = textRule(SINGLE_LINE_REFUSED, 'no control, bidirectional formatting or unpaired surrogate characters');
const MULTI_LINE = textRule(
  MULTI_LINE_REFUSED,
  'of the control characters only tab, line feed and CR LF; of the bidirectional formatting characters only the marks U+200E, U+200F and U+061C',
);

type StringParams = Parameters<typeof z.string>[0];

/** Names, titles, identifiers and every other string of one line. */
export const singleLine = (params?: StringParams) => z.string(params).check(SINGLE_LINE);

/** Descriptions, notes, rationale and other text that may span lines. */
export const multiLine = (params?: StringParams) => z.string(params).check(MULTI_LINE);

/**
 * Some character that is not white space. A pattern rather than trim-then-min(1), so that the
 * document states the rule: JavaScript's \s is exactly what trim() removes, so a value matches
 * exactly when it is not blank before or after trimming.
 */
export const NOT_BLANK = /\S/;

/** A line that must say something: at most `max` characters as sent, stored trimmed. */
export const filledLine = (max: number) => singleLine().max(max).regex(NOT_BLANK, 'must not be blank').trim();

/** Text of one or more lines that must say something: at most `max` characters as sent, stored trimmed. */
export const filledText = (max: number) => multiLine().max(max).regex(NOT_BLANK, 'must not be blank').trim();

/**
 * One of the values an installation configures (the control workflow's states), checked as each
 * request is read. The values are known only at run time, so the schema carries a function that
 * openapi.ts turns into the enum when it builds the document: one list for both.
 */
export const configuredValues = z.registry<{ values: () => readonly string[] }>();

export function configuredChoice(values: () => readonly string[], what: string, code: string) {
  const schema = singleLine().check((ctx) => {
    const allowed = values();
    if (!allowed.includes(ctx.value))
      ctx.issues.push({ code: 'custom', input: ctx.value, message: `is not ${what} (${allowed.join(', ')})`, params: { code } });
  });
  configuredValues.add(schema, { values });
  return schema;
}

/** Whether a string schema was built by singleLine or multiLine (every request string must be). */
export const carriesTextRule = (schema: z.ZodType) =>
  ((schema._zod.def as { checks?: unknown[] }).checks ?? []).some((c) => c === SINGLE_LINE || c === MULTI_LINE);

/** One RFC 6901 reference token. */
export const pointerSegment = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** A custom issue may name its own stable code (the text rule does); others keep zod's. */
const codeOf = (issue: z.core.$ZodIssue) => {
  const own = issue.code === 'custom' ? issue.params?.code : undefined;
  return typeof own === 'string' ? own : issue.code;
};

/** zod issues as RFC 6901 JSON Pointers into the body, or as parameter names for query and path. */
export function bodyErrors(error: z.ZodError): FieldError[] {
  return error.issues.flatMap((issue) => {
    const base = `/${issue.path.map((seg) => pointerSegment(String(seg))).join('/')}`;
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((k) => ({
        pointer: `${base === '/' ? '' : base}/${pointerSegment(k)}`,
        detail: 'is not a recognised property',
        code: 'unrecognized_property',
      }));
    }
    return [{ pointer: base === '/' ? '' : base, detail: issue.message, code: codeOf(issue) }];
  });
}

export function parameterErrors(error: z.ZodError, where: 'query' | 'path'): FieldError[] {
  return error.issues.flatMap((issue) => {
    const names = issue.code === 'unrecognized_keys' ? issue.keys : [String(issue.path[0] ?? '')];
    return names.map((name) => ({
      pointer: `/${where}/${pointerSegment(name)}`,
      detail: issue.code === 'unrecognized_keys' ? 'is not a recognised parameter' : issue.message,
      code: issue.code === 'unrecognized_keys' ? 'unrecognized_parameter' : codeOf(issue),
    }));
  });
}

/**
 * A value built by its first caller and kept: the form of a schema a function needs only for some
 * requests (issue 23, Function size), so that loading a module builds none of its schemas. Schemas
 * that compose one call it inside their own builder; declarations name it, and the operation kernel
 * calls it.
 */
export function once<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}
