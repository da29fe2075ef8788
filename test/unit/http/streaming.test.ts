import { Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { takeStream, withStream, writeStreamed, type StreamingRuntime } from '../../../lib/http/streaming.js';

function recorder() {
  const seen: { metadata?: unknown; chunks: Buffer[] } = { chunks: [] };
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      seen.chunks.push(chunk);
      done();
    },
  });
  const runtime: StreamingRuntime = {
    streamifyResponse: (h) => h,
    HttpResponseStream: {
      from(stream, metadata) {
        seen.metadata = metadata;
        return stream;
      },
    },
  };
  return { seen, sink, runtime };
}

describe('streamed responses', () => {
  it('sends the status and headers first, then the decoded bytes in chunks of at most 1 MiB', async () => {
    const { seen, sink, runtime } = recorder();
    const bytes = Buffer.alloc(2.5 * 1024 * 1024, 7);
    await writeStreamed(
      {
        statusCode: 200,
        headers: { 'Content-Type': 'image/png', 'Cache-Control': 'private, no-store' },
        body: bytes.toString('base64'),
        isBase64Encoded: true,
      },
      sink,
      runtime,
    );
    expect(seen.metadata).toEqual({ statusCode: 200, headers: { 'Content-Type': 'image/png', 'Cache-Control': 'private, no-store' } });
    expect(seen.chunks.map((c) => c.length)).toEqual([1024 * 1024, 1024 * 1024, 0.5 * 1024 * 1024]);
    expect(Buffer.concat(seen.chunks).equals(bytes)).toBe(true);
  });

  it('sends a JSON problem as text', async () => {
    const { seen, sink, runtime } = recorder();
    await writeStreamed({ statusCode: 404, headers: { 'Content-Type': 'application/problem+json' }, body: '{"status":404}' }, sink, runtime);
    expect(Buffer.concat(seen.chunks).toString('utf8')).toBe('{"status":404}');
  });

  it('pipes a result that carries a body stream, as it is read, after the status and headers', async () => {
    const { seen, sink, runtime } = recorder();
    const parts = [Buffer.from('first'), Buffer.from('second')];
    const result = withStream({ statusCode: 200, headers: { 'Content-Length': '11' }, body: '' }, Readable.from(parts));
    await writeStreamed(result, sink, runtime);
    expect(seen.metadata).toEqual({ statusCode: 200, headers: { 'Content-Length': '11' } });
    expect(seen.chunks).toEqual(parts);
  });

  it('hands a body stream over once', () => {
    const stream = Readable.from([Buffer.from('x')]);
    const result = withStream({ statusCode: 200, body: '' }, stream);
    expect(takeStream(result)).toBe(stream);
    expect(takeStream(result)).toBeUndefined();
  });
});
