import { resolve } from 'node:path';
import { readReleaseDirectory, SAMPLE_CATALOGUE_DIR } from '../../catalogue/files.js';
import { importRelease } from '../../catalogue/store.js';
import { CatalogueError } from '../../domain/oscal.js';
import { required, type Command } from '../options.js';

export const commands: Record<string, Command> = {
  'catalogue import': async (values, now) => {
    const dir = resolve(required(values, 'path'));
    const release = await importRelease(readReleaseDirectory(dir), { sample: dir === resolve(SAMPLE_CATALOGUE_DIR) }, now);
    return { release: release.version, controls: release.entries };
  },
};

export const refusals = [CatalogueError];
