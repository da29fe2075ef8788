import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';

/**
 * An array serialised item by item, so that a document of a thousand controls is written as it is
 * made rather than built as one string first. Its items are plain JSON values.
 */
export class StreamedArray<T> {
  constructor(readonly items: Iterable<T>) {}
}

/** `source` mapped through `item` one element at a time, as it is written. */
export function each<S, T>(source: readonly S[], item: (s: S) => T): StreamedArray<T> {
  return new StreamedArray(
    (function* () {
      for (const s of source) yield item(s);
    })(),
  );
}

/** As `each`, but undefined when `source` is empty: OSCAL arrays hold at least one item, so an empty one is left out. */
export const streamed = <S, T>(source: readonly S[], item: (s: S) => T): StreamedArray<T> | undefined => (source.length ? each(source, item) : undefined);

function holdsStream(value: unknown): boolean {
  if (value instanceof StreamedArray) return true;
  if (value === null || typeof value !== 'object') return false;
  return Object.values(value).some(holdsStream);
}

function* chunks(value: unknown): Generator<string> {
  if (value instanceof StreamedArray) {
    let first = true;
    yield '[';
    for (const item of value.items) {
      yield first ? JSON.stringify(item) : `,${JSON.stringify(item)}`;
      first = false;
    }
    yield ']';
  } else if (!holdsStream(value)) {
    yield JSON.stringify(value);
  } else if (Array.isArray(value)) {
    yield '[';
    for (const [i, item] of value.entries()) {
      if (i > 0) yield ',';
      yield* chunks(item);
    }
    yield ']';
  } else {
    let first = true;
    yield '{';
    // JSON.stringify leaves undefined members out; the streamed form must write the same document.
    for (const [key, member] of Object.entries(value as object).filter(([, m]) => m !== undefined)) {
      yield `${first ? '' : ','}${JSON.stringify(key)}:`;
      first = false;
      yield* chunks(member);
    }
    yield '}';
  }
}

const BATCH = 64 * 1024;

/** Writes `value` as UTF-8 JSON to `out`, honouring back-pressure, ends `out` and waits until it has finished. */
export async function writeJson(out: Writable, value: unknown): Promise<void> {
  let pending = '';
  for (const chunk of chunks(value)) {
    pending += chunk;
    if (pending.length < BATCH) continue;
    const more = out.write(pending, 'utf8');
    pending = '';
    if (!more) await once(out, 'drain');
  }
  out.end(pending, 'utf8');
  await finished(out);
}
