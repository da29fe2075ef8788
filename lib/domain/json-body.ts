import { visit } from 'jsonc-parser';
import { ApiError, validationFailed } from '../errors.js';
import { pointerSegment } from './validation.js';

/** Deeper than any body of this API: recursive work on it (payload hashing, the key scan) stays bounded. */
const MAX_DEPTH = 32;

/** Fatal, so that bytes that are not UTF-8 are malformed JSON (RFC 8259 section 8.1), not U+FFFD. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

const malformed = (detail: string) => new ApiError(400, 'malformed_json', 'Bad Request', detail);

/**
 * A JSON request body as a value: 400 `malformed_json` when it is not UTF-8 JSON or an object in it
 * names a key twice, 422 `too_deep` past 32 levels. JSON.parse reads the value (native, strict, and
 * `__proto__` stays an own property the pipeline can refuse), but keeps the last of two equal keys,
 * so jsonc-parser's visitor walks the same text for them; the depth check comes first because that
 * visitor recurses.
 */
export function readJsonBody(bytes: Uint8Array | undefined): unknown {
  let text: string;
  let value: unknown;
  try {
    text = UTF8.decode(bytes);
    value = JSON.parse(text);
  } catch {
    throw malformed('The request body is not valid JSON.');
  }
  if (depthOf(value) > MAX_DEPTH) throw validationFailed([{ pointer: '', detail: `nests deeper than ${MAX_DEPTH} levels`, code: 'too_deep' }]);
  refuseRepeatedKeys(text);
  return value;
}

function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_DEPTH) break;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return deepest;
}

function refuseRepeatedKeys(text: string): void {
  const open: Set<string>[] = [];
  visit(text, {
    onObjectBegin: () => {
      open.push(new Set());
    },
    onObjectEnd: () => {
      open.pop();
    },
    onObjectProperty: (key, _offset, _length, _line, _column, path) => {
      const seen = open[open.length - 1]!;
      if (!seen.has(key)) return void seen.add(key);
      const pointer = [...path(), key].map((segment) => `/${pointerSegment(String(segment))}`).join('');
      throw malformed(`The request body names the key "${key}" twice in one object (${pointer}); send each key once.`);
    },
  });
}
