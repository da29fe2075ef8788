import { describe, expect, it } from 'vitest';
import { each, streamed, writeJson } from '../../../lib/render/json-stream.js';
import { collector } from '../../support/document-model.js';

async function written(value: unknown): Promise<string> {
  const sink = collector();
  await writeJson(sink.out, value);
  return sink.bytes().toString('utf8');
}

describe('streamed JSON', () => {
  it('writes what JSON.stringify writes for the same document, streamed arrays included', async () => {
    const items = [{ a: 1, b: undefined }, { a: 'ü "q"' }];
    const text = await written({ head: { x: [1, undefined, { y: each(items, (i) => i) }] }, gone: undefined, tail: null });
    expect(text).toBe(JSON.stringify({ head: { x: [1, undefined, { y: items }] }, tail: null }));
  });

  it('leaves out an empty array given through streamed', async () => {
    expect(await written({ kept: streamed([1], (n) => n), empty: streamed([], (n) => n) })).toBe('{"kept":[1]}');
  });

  it('writes an empty array given through each', async () => {
    expect(await written({ controls: each([], (n) => n) })).toBe('{"controls":[]}');
  });
});
