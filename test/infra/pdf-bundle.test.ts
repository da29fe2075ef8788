import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeFiles } from '../../infra/bundling.js';
import { PDF_RENDERERS } from '../../lib/render/pdf/index.js';
import { collector, documentModel } from '../support/document-model.js';
import { functionBuild } from '../support/function-builds.js';
import { fonts, pageCount, pageTexts } from '../support/pdf.js';

const run = promisify(execFile);
const ENTRY = fileURLToPath(new URL('../support/render-pdf-entry.ts', import.meta.url));

/** Runs the bundle in a plain Node process in a directory without node_modules, as Lambda does. */
const DRIVER = `
const mod = await import(process.env.BUNDLE);
await mod.handler({ model: process.env.MODEL, out: process.env.OUT });
`;

let dir: string;
let renderer: string;
let bundle: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdf-bundle-'));
  renderer = (await functionBuild(ENTRY)).outdir;
  bundle = join(renderer, 'index.mjs');
}, 60_000);

afterAll(() => rm(dir, { recursive: true, force: true }));

type Key = keyof typeof PDF_RENDERERS;

function modelOf(key: Key) {
  const model = documentModel({ key, limit: 60 });
  model.system.name = 'Система учёта';
  return model;
}

const rendered = new Map<Key, Promise<string>>();

/** A document rendered once per file: the SSP's checks and its comparison with the sources look at the same PDF. */
function renderInBundle(key: Key): Promise<string> {
  const known = rendered.get(key);
  if (known) return known;
  const pdf = render(key);
  rendered.set(key, pdf);
  return pdf;
}

async function render(key: Key): Promise<string> {
  const model = modelOf(key);
  const modelFile = join(dir, `${key}.json`);
  await writeFile(
    modelFile,
    JSON.stringify(model, (k, v) => (k === 'bytes' ? Buffer.from(v as Uint8Array).toString('base64') : v)),
  );
  const out = join(dir, `${key}.pdf`);
  await run(process.execPath, ['--input-type=module', '-e', DRIVER], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', BUNDLE: `file://${bundle}`, MODEL: modelFile, OUT: out },
    timeout: 60_000,
  });
  return out;
}

describe('PDF renderers in a bundle built like the functions', () => {
  it('carries the DejaVu fonts in its code', async () => {
    const code = (await Promise.all((await codeFiles(renderer)).map((file) => readFile(file, 'utf8')))).join('\n');
    const font = (await readFile(fileURLToPath(import.meta.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf')))).toString('base64');
    expect(code.includes(font), 'the bundle holds DejaVuSans-Bold').toBe(true);
  });

  it.each(['ssp', 'e8-assessment', 'security-assessment-report'] as const)(
    'render %s with the embedded fonts, non-Latin text included',
    async (key) => {
      const pdf = await renderInBundle(key);
      expect(await pageCount(pdf)).toBeGreaterThan(3);
      const used = await fonts(pdf);
      expect(used.map(([name]) => name.slice(7))).toEqual(expect.arrayContaining(['DejaVuSans', 'DejaVuSans-Bold']));
      expect(used.every(([name, embedded]) => embedded && name.includes('DejaVu'))).toBe(true);
      expect((await pageTexts(pdf)).join(' ')).toContain('Система учёта');
    },
    60_000,
  );

  it('renders the same bytes as the sources do on a laptop', async () => {
    const bundled = await readFile(await renderInBundle('ssp'));
    const { out, bytes } = collector();
    await PDF_RENDERERS.ssp.render(modelOf('ssp'), out);
    expect(bundled.equals(bytes())).toBe(true);
  }, 60_000);
});
