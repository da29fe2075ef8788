import { afterAll, describe, expect, it } from 'vitest';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readReleaseDirectory, SAMPLE_CATALOGUE_DIR } from '../../../lib/catalogue/files.js';
import { CatalogueError } from '../../../lib/domain/oscal.js';

const scratch = mkdtempSync(join(tmpdir(), 'catalogue-files-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const CATALOG = 'SAMPLE_catalog.json';
const PROTECTED = 'SAMPLE_PROTECTED-baseline_profile.json';

/** A release directory holding the named sample files, and any files given by their content. */
function directory(samples: string[], written: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(scratch, 'release-'));
  for (const name of samples) copyFileSync(join(SAMPLE_CATALOGUE_DIR, name), join(dir, name));
  for (const [name, text] of Object.entries(written)) writeFileSync(join(dir, name), text);
  return dir;
}

/** The sample PROTECTED profile, claiming another release. */
const otherRelease = () => {
  const profile = JSON.parse(readFileSync(join(SAMPLE_CATALOGUE_DIR, PROTECTED), 'utf8'));
  profile.profile.metadata.version = '2024.1';
  return JSON.stringify(profile);
};

describe('readReleaseDirectory', () => {
  it('reads a catalog without profiles as the release of its entries', () => {
    const release = readReleaseDirectory(directory([CATALOG]));
    expect([release.version, release.entries.length]).toEqual(['2025.1-sample', 31]);
  });

  it('checks each profile it finds against the catalog, under the baseline its file name gives', () => {
    expect(() => readReleaseDirectory(directory([CATALOG], { 'ACME_PROTECTED-baseline_profile.json': otherRelease() }))).toThrow(
      'the P profile is release 2024.1, the catalog 2025.1-sample',
    );
  });

  it('leaves alone a profile whose file name names no baseline', () => {
    expect(readReleaseDirectory(directory([CATALOG], { 'ACME_CONFIDENTIAL-baseline_profile.json': otherRelease() })).version).toBe('2025.1-sample');
  });

  it('refuses a directory that does not exist', () => {
    const missing = join(scratch, 'missing');
    expect(() => readReleaseDirectory(missing)).toThrow(new CatalogueError(`no directory ${missing}`));
  });

  it('refuses a directory without a catalog', () => {
    const dir = directory([PROTECTED]);
    expect(() => readReleaseDirectory(dir)).toThrow(`expected one *_catalog.json in ${dir}, found 0`);
  });

  it('refuses a directory of two catalogs', () => {
    const dir = directory([CATALOG], { 'OTHER_catalog.json': readFileSync(join(SAMPLE_CATALOGUE_DIR, CATALOG), 'utf8') });
    expect(() => readReleaseDirectory(dir)).toThrow(`expected one *_catalog.json in ${dir}, found 2`);
  });

  it('refuses a file that is not JSON, naming it', () => {
    const dir = directory([], { [CATALOG]: '{"catalog":' });
    expect(() => readReleaseDirectory(dir)).toThrow(new RegExp(`^cannot read ${join(dir, CATALOG)}: `));
  });

  it('refuses JSON that is not an OSCAL file of the expected shape, naming the file and the first issue', () => {
    const dir = directory([CATALOG], { [PROTECTED]: JSON.stringify({ profile: { imports: [] } }) });
    expect(() => readReleaseDirectory(dir)).toThrow(new RegExp(`^${join(dir, PROTECTED)} is not an OSCAL file of the expected shape \\(profile\\.`));
  });

  it('answers every failure as a CatalogueError, which the CLI reports as bad input', () => {
    expect(() => readReleaseDirectory(directory([]))).toThrow(CatalogueError);
  });
});
