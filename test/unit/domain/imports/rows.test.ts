import { describe, expect, it } from 'vitest';
import { implementationStatusOf, textOrNull, withoutDuplicates } from '../../../../lib/domain/imports/rows.js';
import { buildImportedRow } from '../../../support/factories.js';

describe('implementationStatusOf', () => {
  it('reads the spellings sources use, whatever their case and punctuation', () => {
    expect(['Implemented', 'Partially', 'N/A', 'Compensating control', 'not yet implemented'].map(implementationStatusOf)).toEqual([
      'implemented',
      'partially_implemented',
      'not_applicable',
      'alternate_control',
      'not_implemented',
    ]);
  });

  it('is null for a status it does not know', () => {
    expect(implementationStatusOf('in flight')).toBeNull();
  });
});

describe('textOrNull', () => {
  it('trims text and reads blank or missing text as absent', () => {
    expect([textOrNull('  a b '), textOrNull(' \n '), textOrNull(undefined)]).toEqual(['a b', null, null]);
  });
});

describe('withoutDuplicates', () => {
  it('keeps the first row of each control and reports the later ones, with the errors in row order', () => {
    const parsed = withoutDuplicates({
      rows: [buildImportedRow({ row: 2 }), buildImportedRow({ row: 3, control_id: 'ism-0002' }), buildImportedRow({ row: 5 })],
      errors: [{ row: 4, reason: 'unreadable' }],
    });
    expect(parsed.rows.map((r) => r.row)).toEqual([2, 3]);
    expect(parsed.errors).toEqual([
      { row: 4, reason: 'unreadable' },
      { row: 5, reason: 'duplicate of row 2 for ism-0001' },
    ]);
  });
});
