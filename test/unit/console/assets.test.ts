import { afterAll, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ASSET_SOURCES, type AssetName, assetReader, sourceAssets } from '../../../lib/console/assets.js';

const dir = mkdtempSync(join(tmpdir(), 'console-assets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, 'console.css'), 'body { margin: 0 }');
writeFileSync(join(dir, 'console.js'), 'void 0;');

const fromDirectory = () => vi.fn((name: AssetName) => join(dir, name));

describe('assetReader', () => {
  it('answers an asset with its bytes and its content type', async () => {
    const read = assetReader(fromDirectory());
    expect(await read('console.css')).toEqual({ type: 'text/css; charset=utf-8', body: Buffer.from('body { margin: 0 }') });
  });

  it('answers nothing for a name that is no asset, looking for no file', async () => {
    const locate = fromDirectory();
    const read = assetReader(locate);
    expect([await read('../package.json'), await read('toString'), locate.mock.calls]).toEqual([undefined, undefined, []]);
  });

  it('reads each asset once, however often it is asked for', async () => {
    const locate = fromDirectory();
    const read = assetReader(locate);
    await Promise.all([read('console.js'), read('console.js'), read('console.css')]);
    await read('console.js');
    expect(locate.mock.calls).toEqual([['console.js'], ['console.css']]);
  });

  it('fails when the asset file is missing', async () => {
    await expect(assetReader(fromDirectory())('redoc.js')).rejects.toThrow(/ENOENT/);
  });
});

describe('sourceAssets', () => {
  it('reads each asset from its source in the checkout', async () => {
    const read = sourceAssets();
    const names = Object.keys(ASSET_SOURCES) as AssetName[];
    const found = await Promise.all(names.map(async (name) => (await read(name))?.body.equals(readFileSync(ASSET_SOURCES[name].from))));
    expect(found).toEqual(names.map(() => true));
  });
});
