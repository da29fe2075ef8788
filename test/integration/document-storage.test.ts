import { createHash } from 'node:crypto';
import type { Writable } from 'node:stream';
import { newUlid } from '../../lib/domain/ids.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { runAsFunction } from '../../lib/command-recording.js';
import { AREAS, getObject } from '../../lib/files/storage.js';
import { streamToObject } from '../../lib/jobs/stream-upload.js';
import { useTestServices } from '../support/services.js';

beforeAll(() => useTestServices());

/** Bytes that differ from part to part, written in small chunks as a renderer writes, with back-pressure. */
function writeChunks(total: number): { bytes: Buffer; write: (out: Writable, end?: boolean) => Promise<void> } {
  const bytes = Buffer.alloc(total);
  for (let i = 0; i < total; i++) bytes[i] = (i * 31 + (i >> 12)) & 0xff;
  return {
    bytes,
    write: async (out, end = true) => {
      for (let at = 0; at < total; at += 64 * 1024) {
        if (!out.write(bytes.subarray(at, Math.min(total, at + 64 * 1024)))) await new Promise((resolve) => out.once('drain', resolve));
      }
      if (end) out.end();
    },
  };
}

describe('streaming a generated document into S3', () => {
  it('stores an output above one part as a multipart upload, with its size and SHA-256 counted on the way', async () => {
    const key = `${AREAS.documents}${newUlid()}`;
    const { bytes, write } = writeChunks(12 * 1024 * 1024 + 123);
    const stored = await runAsFunction('workers/generate', () => streamToObject(key, 'application/pdf', write));
    expect(stored).toEqual({ size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
    expect((await getObject(key))?.equals(bytes)).toBe(true);
  });

  it('aborts the multipart upload when the renderer fails part way, leaving no object', async () => {
    const key = `${AREAS.documents}${newUlid()}`;
    const { write } = writeChunks(7 * 1024 * 1024);
    const failing = async (out: Writable) => {
      await write(out, false);
      throw new Error('renderer failed');
    };
    await expect(runAsFunction('workers/generate', () => streamToObject(key, 'application/pdf', failing))).rejects.toThrow('renderer failed');
    expect(await getObject(key)).toBeUndefined();
  });
});
