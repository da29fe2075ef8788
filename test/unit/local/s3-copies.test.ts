import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyWhole, type CopyingStore } from '../../../lib/local/s3-copies.js';

interface Store extends CopyingStore {
  putBucket(name: string): Promise<void>;
  putObject(object: { bucket: string; key: string; content: Buffer; metadata: Record<string, string> }): Promise<unknown>;
}

/** s3rver's own filesystem store, which the local runtime's S3 emulator keeps its objects in. */
const FilesystemStore = createRequire(import.meta.url)('s3rver/lib/stores/filesystem') as new (directory: string) => Store;

let dir: string;
let store: Store;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 's3-copies-'));
  store = new FilesystemStore(dir);
  copyWhole(store);
  await store.putBucket('b');
  await store.putObject({ bucket: 'b', key: 'dest', content: Buffer.from('old'), metadata: { 'content-type': 'text/plain' } });
  await store.putObject({ bucket: 'b', key: 'src', content: Buffer.from('new'), metadata: { 'content-type': 'image/png' } });
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

const bytes = (key: string) => readFile(store.getResourcePath('b', key, 'object'), 'utf8');
const metadata = async (key: string) => JSON.parse(await readFile(store.getResourcePath('b', key, 'metadata.json'), 'utf8')) as Record<string, string>;

describe('copyWhole', () => {
  it('replaces the destination with the source, its bytes and its metadata', async () => {
    await store.copyObject('b', 'src', 'b', 'dest');
    expect(await bytes('dest')).toBe('new');
    expect(await metadata('dest')).toMatchObject({ 'content-type': 'image/png' });
    expect(await readFile(store.getResourcePath('b', 'dest', 'object.md5'), 'utf8')).toBe(
      await readFile(store.getResourcePath('b', 'src', 'object.md5'), 'utf8'),
    );
  });

  it('leaves the destination as it was when the source goes away part-way through the copy', async () => {
    // s3rver copies the object's bytes before its metadata: a source whose delete has removed its metadata but not yet its bytes.
    await rm(store.getResourcePath('b', 'src', 'metadata.json'));
    await expect(store.copyObject('b', 'src', 'b', 'dest')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await bytes('dest')).toBe('old');
    expect(await metadata('dest')).toMatchObject({ 'content-type': 'text/plain' });
  });

  it('leaves no file of its own behind, whether the copy succeeds or fails', async () => {
    await store.copyObject('b', 'src', 'b', 'dest');
    await rm(store.getResourcePath('b', 'src', 'metadata.json'));
    await store.copyObject('b', 'src', 'b', 'dest').catch(() => undefined);
    expect(readdirSync(join(dir, 'b')).filter((name) => name.includes('copying'))).toEqual([]);
  });

  it('leaves a copy that replaces the metadata to s3rver, which writes it with the source bytes', async () => {
    await store.copyObject('b', 'src', 'b', 'dest', { 'content-type': 'application/pdf' });
    expect(await bytes('dest')).toBe('new');
    expect(await metadata('dest')).toMatchObject({ 'content-type': 'application/pdf' });
  });
});
