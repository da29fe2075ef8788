import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

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
      // As JSON.stringify does, an undefined element is written as null.
      yield* chunks(item === undefined ? null : item);
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

/** The document's text in pieces of about 64 KiB: few enough writes, and never the whole document at once. */
function* batches(value: unknown): Generator<string> {
  let pending = '';
  for (const chunk of chunks(value)) {
    pending += chunk;
    if (pending.length < BATCH) continue;
    yield pending;
    pending = '';
  }
  if (pending) yield pending;
}

/**
 * Writes `value` as UTF-8 JSON to `out` and ends it, resolving once `out` has finished. A pipeline,
 * so that back-pressure, a failing sink and a sink closed early all settle the promise.
 */
export async function writeJson(out: Writable, value: unknown): Promise<void> {
  await pipeline(Readable.from(batches(value)), out);
}
