import { describe, expect, it } from 'vitest';
import { toEntry } from '../../../lib/store/catalogue-entries.js';
import { StoredItemInvalid } from '../../../lib/store/entity.js';
import { keys } from '../../../lib/store/keys.js';
import { buildCatalogueEntry } from '../../support/factories.js';

const entry = buildCatalogueEntry({ position: 7, essential_eight: ['ML2'], revision: 2, updated: 'Dec-25' });

/** As the catalogue's import writes an entry. */
const stored = { ...keys.catalogueEntry('01JD3Q5Z8X6Y7W2V9T4S3R2P1N', 7), entity: 'catalogue-entry', ...entry };

describe('stored catalogue entries', () => {
  it('reads an entry as imported', () => {
    expect(toEntry(stored)).toEqual(entry);
  });

  it('refuses an entry tagged with a classification the catalogue does not have, naming its key', () => {
    const item = { ...stored, classifications: ['RESTRICTED'] };
    expect(() => toEntry(item)).toThrow(StoredItemInvalid);
    expect(() => toEntry(item)).toThrow(/RELEASE#01JD3Q5Z8X6Y7W2V9T4S3R2P1N\|ENTRY#00007/);
  });
});
