import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/**
 * The console's static files: its own stylesheet, scripts and icon, the WebAuthn browser library and the
 * Redoc bundle, all served from the console itself (no CDN, nothing third-party at run time). On
 * AWS they are copied beside the bundle at build time (infra/bundling.ts), so the function's code
 * stays small and Redoc is read only when the reference is opened.
 */
export const ASSET_SOURCES = {
  'console.css': { from: 'lib/console/static/console.css', type: 'text/css; charset=utf-8' },
  'console.js': { from: 'lib/console/static/console.js', type: 'text/javascript; charset=utf-8' },
  'reference.js': { from: 'lib/console/static/reference.js', type: 'text/javascript; charset=utf-8' },
  'webauthn.js': { from: 'node_modules/@simplewebauthn/browser/dist/bundle/index.umd.min.js', type: 'text/javascript; charset=utf-8' },
  'redoc.js': { from: 'node_modules/redoc/bundles/redoc.standalone.js', type: 'text/javascript; charset=utf-8' },
  'favicon.svg': { from: 'lib/console/static/favicon.svg', type: 'image/svg+xml' },
} as const;

export type AssetName = keyof typeof ASSET_SOURCES;

export interface Asset {
  type: string;
  body: Buffer;
}

export type AssetReader = (name: string) => Promise<Asset | undefined>;

const isAsset = (name: string): name is AssetName => Object.hasOwn(ASSET_SOURCES, name);

/** Reads assets from a directory of files named like the assets (the Lambda asset), or from their sources (a checkout). */
export function assetReader(locate: (name: AssetName) => string): AssetReader {
  const cache = new Map<AssetName, Promise<Asset>>();
  return async (name) => {
    if (!isAsset(name)) return undefined;
    let found = cache.get(name);
    if (!found) {
      found = readFile(locate(name)).then((body) => ({ type: ASSET_SOURCES[name].type, body }));
      cache.set(name, found);
    }
    return found;
  };
}

const ROOT = new URL('../../', import.meta.url);

/** In a checkout (npm start, tests): the sources themselves. */
export const sourceAssets = () => assetReader((name) => fileURLToPath(new URL(ASSET_SOURCES[name].from, ROOT)));
