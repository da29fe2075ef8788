import { describe, expect, it } from 'vitest';
import { licensedClassifications } from '../../../lib/domain/setup-options.js';

describe('licensedClassifications', () => {
  it('offers the licensed classifications with their names, in catalogue order', () => {
    expect(licensedClassifications(['S', 'P'])).toEqual([
      { code: 'P', name: 'PROTECTED' },
      { code: 'S', name: 'SECRET' },
    ]);
  });

  it('offers nothing for a code that is not a classification', () => {
    expect(licensedClassifications(['X'])).toEqual([]);
  });
});
