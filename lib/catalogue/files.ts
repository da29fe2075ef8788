import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { CatalogFile, CatalogueError, parseRelease, ProfileFile, type Baseline, type ParsedRelease } from '../domain/oscal.js';

/** File name part of each baseline profile, as ASD names them (ISM_PROTECTED-baseline_profile.json). */
const PROFILE_NAMES: Record<string, Baseline> = {
  NON_CLASSIFIED: 'NC',
  OFFICIAL_SENSITIVE: 'OS',
  PROTECTED: 'P',
  SECRET: 'S',
  TOP_SECRET: 'TS',
  E8_ML1: 'ML1',
  E8_ML2: 'ML2',
  E8_ML3: 'ML3',
};
const PROFILE_FILE = /^[A-Za-z0-9]+_([A-Z0-9_]+)-baseline_profile\.json$/;
const CATALOG_FILE = /_catalog\.json$/;

/** The sample catalogue this project ships: its own words in the OSCAL shape, not ASD text. */
export const SAMPLE_CATALOGUE_DIR = fileURLToPath(new URL('./sample/', import.meta.url));

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new CatalogueError(`cannot read ${path}: ${(error as Error).message}`);
  }
}

function parsed<T>(
  schema: { safeParse: (v: unknown) => { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } } },
  path: string,
): T {
  const result = schema.safeParse(readJson(path));
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new CatalogueError(`${path} is not an OSCAL file of the expected shape (${issue.path.join('.')}: ${issue.message})`);
  }
  return result.data;
}

/** Reads a release directory: exactly one catalog and its baseline profiles. */
export function readReleaseDirectory(dir: string): ParsedRelease {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    throw new CatalogueError(`no directory ${dir}`);
  }
  const catalogs = names.filter((n) => CATALOG_FILE.test(n));
  if (catalogs.length !== 1) throw new CatalogueError(`expected one *_catalog.json in ${dir}, found ${catalogs.length}`);
  const profiles: Partial<Record<Baseline, ProfileFile>> = {};
  for (const name of names) {
    const baseline = PROFILE_NAMES[PROFILE_FILE.exec(name)?.[1] ?? ''];
    if (baseline) profiles[baseline] = parsed(ProfileFile(), join(dir, name));
  }
  return parseRelease(parsed(CatalogFile(), join(dir, catalogs[0]!)), profiles);
}
