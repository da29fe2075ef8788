import { describe, expect, it } from 'vitest';
import { indexEntries, readIndex } from '../../../lib/store/control-filters.js';
import { keys } from '../../../lib/store/keys.js';
import { indexNamesCode } from '../../../lib/store/registers.js';

const control = (position: number, catalogue_id: string, label: string) => ({ position, catalogue_id, label, title: `Control ${label}`, essential_eight: [] });
const index = readIndex({
  ...keys.projectControlIndex('P'),
  entries: new Uint8Array(indexEntries([control(1, 'ism-0714', 'ISM-0714'), control(2, 'sample-9001', 'SAMPLE-9001')])),
});

describe('control reference codes', () => {
  it('resolves a code the project control index names, in any case', () => {
    expect(indexNamesCode(index, 'ISM-0714')).toBe(true);
    expect(indexNamesCode(index, 'ism-0714')).toBe(true);
  });

  it('refuses a code no control of the project has, and any code without an index (an unpopulated project)', () => {
    expect(indexNamesCode(index, 'ISM-0715')).toBe(false);
    expect(indexNamesCode(undefined, 'ISM-0714')).toBe(false);
  });
});
