import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SAMPLE_CATALOGUE_DIR, readReleaseDirectory } from '../../../lib/catalogue/files.js';
import { CatalogueError, parseRelease, type CatalogFile, type ProfileFile, updatedMonth } from '../../../lib/domain/oscal.js';
import { ismRelease } from '../../support/document-model.js';

const sample = (name: string) => JSON.parse(readFileSync(join(SAMPLE_CATALOGUE_DIR, name), 'utf8'));

describe('OSCAL release parsing', () => {
  it('reads the sample catalogue in sort order, with tags, labels and group path', () => {
    const release = readReleaseDirectory(SAMPLE_CATALOGUE_DIR);
    expect(release.version).toBe('2025.1-sample');
    expect(release.entries).toHaveLength(31);
    expect(release.entries.map((e) => e.position)).toEqual([...release.entries.keys()]);
    expect(release.entries[0]).toMatchObject({ kind: 'principle', label: 'GOV-01', classifications: ['NC', 'OS', 'P', 'S', 'TS'] });
    const patching = release.entries.find((e) => e.statement.startsWith('Security patches for office'))!;
    expect(patching).toMatchObject({
      kind: 'control',
      essential_eight: ['ML1', 'ML2'],
      path: ['Sample guidelines for system management', 'System patching', 'Applying patches'],
    });
  });

  it('refuses a profile that lists an entry its tags do not carry', () => {
    const catalog = sample('SAMPLE_catalog.json') as CatalogFile;
    const profile = sample('SAMPLE_TOP_SECRET-baseline_profile.json') as ProfileFile;
    profile.profile.imports[0]!['include-controls']![0]!['with-ids'].pop();
    expect(() => parseRelease(catalog, { TS: profile })).toThrow(CatalogueError);
  });

  it('refuses a profile of another release', () => {
    const catalog = sample('SAMPLE_catalog.json') as CatalogFile;
    const profile = sample('SAMPLE_PROTECTED-baseline_profile.json') as ProfileFile;
    profile.profile.metadata.version = '2024.1';
    expect(() => parseRelease(catalog, { P: profile })).toThrow(/release 2024.1/);
  });

  it('refuses a catalog with the same id twice', () => {
    const catalog = sample('SAMPLE_catalog.json') as CatalogFile;
    const topic = catalog.catalog.groups[1]!.groups![0]!.groups![0]!;
    topic.controls!.push({ ...topic.controls![0]! });
    expect(() => parseRelease(catalog, {})).toThrow(/twice/);
  });
});

describe('updatedMonth', () => {
  it('writes the month the ISM gives as Dec-25 as an ISO month', () => {
    expect(updatedMonth('Dec-25')).toBe('2025-12');
    expect(updatedMonth('Jun-18')).toBe('2018-06');
  });

  it('reads every updated value of the official release as an ISO month', () => {
    const months = ismRelease().entries.map((e) => updatedMonth(e.updated));
    expect(months.filter((m) => m !== null && !/^\d{4}-(0[1-9]|1[0-2])$/.test(m))).toEqual([]);
    expect(months.filter((m) => m !== null).length).toBeGreaterThan(900);
  });

  it('keeps an ISO date to its month, and answers anything else as it is', () => {
    expect(updatedMonth('2025-12-09')).toBe('2025-12');
    expect(updatedMonth('December 2025')).toBe('December 2025');
    expect(updatedMonth(null)).toBeNull();
  });
});
