import { describe, expect, it } from 'vitest';
import { CLASSIFICATION_CODES, CLASSIFICATIONS } from '../../../lib/domain/classifications.js';

describe('CLASSIFICATIONS', () => {
  it('names every code, lowest first, as setup forms show them', () => {
    expect(CLASSIFICATIONS).toEqual([
      { code: 'NC', name: 'Non-classified' },
      { code: 'OS', name: 'OFFICIAL: Sensitive' },
      { code: 'P', name: 'PROTECTED' },
      { code: 'S', name: 'SECRET' },
      { code: 'TS', name: 'TOP SECRET' },
    ]);
    expect(CLASSIFICATIONS.map((c) => c.code)).toEqual([...CLASSIFICATION_CODES]);
  });
});
