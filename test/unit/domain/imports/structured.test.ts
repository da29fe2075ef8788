import { describe, expect, it } from 'vitest';
import { ImportRejected } from '../../../../lib/domain/imports/rows.js';
import { parseStructured } from '../../../../lib/domain/imports/structured.js';
import { assertionDocument, componentDefinition, formatEntry, jsonBytes, requirement } from '../../../support/assertion-documents.js';

const rejection = (run: () => unknown) => {
  try {
    run();
    return undefined;
  } catch (e) {
    return e instanceof ImportRejected ? e.code : e;
  }
};

describe('the service assertion format', () => {
  it('reads every field of an entry, with the document’s ISM version', () => {
    const parsed = parseStructured(
      jsonBytes(
        assertionDocument([formatEntry('ISM-1691', { assessor_finding: 'Effective.', control_text: 'Patches are applied.' })], { ism_version: '2025.12.9' }),
      ),
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
    const parsed = parseStructured(jsonBytes(assertionDocument([formatEntry('ism-0009'), formatEntry('ism-0027', { colour: 'red' })])));
    expect([parsed.rows.length, parsed.errors]).toEqual([1, [{ row: 2, reason: 'unknown property colour' }]]);
  });

  it('reports a responsibility outside its own words', () => {
    const parsed = parseStructured(jsonBytes(assertionDocument([formatEntry('ism-0009', { responsibility: 'Customer' })])));
    expect(parsed.errors[0]?.reason).toMatch(/^responsibility: /);
  });

  it('reports an identifier that is not an ISM control', () => {
    const parsed = parseStructured(jsonBytes(assertionDocument([formatEntry('AC-2')])));
    expect(parsed.errors).toEqual([{ row: 1, reason: 'control_id: "AC-2" is not an ISM control identifier' }]);
  });

  it('reports a second entry of the same control', () => {
    const parsed = parseStructured(jsonBytes(assertionDocument([formatEntry('ism-0009'), formatEntry('ISM-0009')])));
    expect(parsed.errors).toEqual([{ row: 2, reason: 'duplicate of row 1 for ism-0009' }]);
  });

  it('refuses a document of another format version', () => {
    expect(rejection(() => parseStructured(jsonBytes({ ...assertionDocument([]), format_version: 2 })))).toBe('invalid_assertion_document');
  });

  it('refuses bytes that are not JSON', () => {
    expect(rejection(() => parseStructured(new TextEncoder().encode('Control ID,Responsibility')))).toBe('malformed_json');
  });
});

describe('OSCAL component definitions', () => {
  it('reads the implemented requirements of every component in document order', () => {
    const parsed = parseStructured(jsonBytes(componentDefinition([requirement('ism-1691')], [requirement('ism-0009'), requirement('ism-0027')])));
    expect(parsed.rows.map((r) => [r.row, r.control_id])).toEqual([
      [1, 'ism-1691'],
      [2, 'ism-0009'],
      [3, 'ism-0027'],
    ]);
  });

  it('takes the description as the statement and the remarks as consumer guidance', () => {
    const parsed = parseStructured(
      jsonBytes(componentDefinition([requirement('ism-1691', { responsibility: 'shared' }, { remarks: 'Tenants patch their own images.' })])),
    );
    expect(parsed.rows[0]).toMatchObject({
      responsibility: 'shared',
      implementation_statement: 'The managed service enforces ism-1691.',
      consumer_guidance: 'Tenants patch their own images.',
      assessor_finding: null,
    });
  });

  it('maps the control-origination prop to a responsibility', () => {
    const parsed = parseStructured(jsonBytes(componentDefinition([requirement('ism-1691', { 'control-origination': 'customer-configured' })])));
    expect(parsed.rows[0]?.responsibility).toBe('consumer');
  });

  it('maps the implementation-status prop', () => {
    const parsed = parseStructured(
      jsonBytes(componentDefinition([requirement('ism-1691', { responsibility: 'provider', 'implementation-status': 'partial' })])),
    );
    expect(parsed.rows[0]?.implementation_status).toBe('partially_implemented');
  });

  it('reports a requirement that names no responsibility', () => {
    const parsed = parseStructured(jsonBytes(componentDefinition([requirement('ism-1691', {})])));
    expect(parsed.errors).toEqual([{ row: 1, reason: 'responsibility: missing (a responsibility or control-origination prop)' }]);
  });

  it('reports a requirement without a description', () => {
    const { description: _, ...bare } = requirement('ism-1691');
    const parsed = parseStructured(jsonBytes(componentDefinition([bare])));
    expect(parsed.errors[0]?.reason).toMatch(/^description: /);
  });

  it('refuses a component definition without its structure', () => {
    expect(rejection(() => parseStructured(jsonBytes({ 'component-definition': { components: 'none' } })))).toBe('invalid_component_definition');
  });
});
