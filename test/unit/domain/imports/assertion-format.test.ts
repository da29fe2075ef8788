import { describe, expect, it } from 'vitest';
import { parseAssertionDocument } from '../../../../lib/domain/imports/assertion-format.js';
import { assertionDocument, formatEntry, rejectionCode } from '../../../support/assertion-documents.js';

describe('parseAssertionDocument', () => {
  it('reads every field of an entry, with the document’s ISM version', () => {
    const parsed = parseAssertionDocument(
      assertionDocument([formatEntry('ISM-1691', { assessor_finding: 'Effective.', control_text: 'Patches are applied.' })], { ism_version: '2025.12.9' }),
    );
    expect(parsed.rows).toEqual([
      {
        row: 1,
        control_id: 'ism-1691',
        responsibility: 'provider',
        implementation_status: 'implemented',
        implementation_statement: 'Our hosting platform meets ISM-1691 for all tenants.',
        consumer_guidance: null,
        assessor_finding: 'Effective.',
        control_text: 'Patches are applied.',
        ism_version: '2025.12.9',
      },
    ]);
  });

  it('reports an entry with an unknown property by its position while the others import', () => {
    const parsed = parseAssertionDocument(assertionDocument([formatEntry('ism-0009'), formatEntry('ism-0027', { colour: 'red' })]));
    expect([parsed.rows.length, parsed.errors]).toEqual([1, [{ row: 2, reason: 'unknown property colour' }]]);
  });

  it('reports a responsibility outside its own words', () => {
    const parsed = parseAssertionDocument(assertionDocument([formatEntry('ism-0009', { responsibility: 'Customer' })]));
    expect(parsed.errors[0]?.reason).toMatch(/^responsibility: /);
  });

  it('reports an identifier that is not an ISM control', () => {
    const parsed = parseAssertionDocument(assertionDocument([formatEntry('AC-2')]));
    expect(parsed.errors).toEqual([{ row: 1, reason: 'control_id: "AC-2" is not an ISM control identifier' }]);
  });

  it('reports a second entry of the same control', () => {
    const parsed = parseAssertionDocument(assertionDocument([formatEntry('ism-0009'), formatEntry('ISM-0009')]));
    expect(parsed.errors).toEqual([{ row: 2, reason: 'duplicate of row 1 for ism-0009' }]);
  });

  it('refuses a document of another format version', () => {
    expect(rejectionCode(() => parseAssertionDocument({ ...assertionDocument([]), format_version: 2 }))).toBe('invalid_assertion_document');
  });
});
