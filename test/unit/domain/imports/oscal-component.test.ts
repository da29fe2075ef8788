import { describe, expect, it } from 'vitest';
import { parseComponentDefinition } from '../../../../lib/domain/imports/oscal-component.js';
import { componentDefinition, requirement, rejectionCode } from '../../../support/assertion-documents.js';

describe('parseComponentDefinition', () => {
  it('reads the implemented requirements of every component in document order', () => {
    const parsed = parseComponentDefinition(componentDefinition([requirement('ism-1691')], [requirement('ism-0009'), requirement('ism-0027')]));
    expect(parsed.rows.map((r) => [r.row, r.control_id])).toEqual([
      [1, 'ism-1691'],
      [2, 'ism-0009'],
      [3, 'ism-0027'],
    ]);
  });

  it('takes the description as the statement and the remarks as consumer guidance', () => {
    const parsed = parseComponentDefinition(
      componentDefinition([requirement('ism-1691', { responsibility: 'shared' }, { remarks: 'Tenants patch their own images.' })]),
    );
    expect(parsed.rows[0]).toMatchObject({
      responsibility: 'shared',
      implementation_statement: 'The managed service enforces ism-1691.',
      consumer_guidance: 'Tenants patch their own images.',
      assessor_finding: null,
    });
  });

  it('maps the control-origination prop to a responsibility', () => {
    const parsed = parseComponentDefinition(componentDefinition([requirement('ism-1691', { 'control-origination': 'customer-configured' })]));
    expect(parsed.rows[0]?.responsibility).toBe('consumer');
  });

  it('maps the implementation-status prop', () => {
    const parsed = parseComponentDefinition(componentDefinition([requirement('ism-1691', { responsibility: 'provider', 'implementation-status': 'partial' })]));
    expect(parsed.rows[0]?.implementation_status).toBe('partially_implemented');
  });

  it('reports a requirement that names no responsibility', () => {
    const parsed = parseComponentDefinition(componentDefinition([requirement('ism-1691', {})]));
    expect(parsed.errors).toEqual([{ row: 1, reason: 'responsibility: missing (a responsibility or control-origination prop)' }]);
  });

  it('reports a requirement without a description', () => {
    const { description: _, ...bare } = requirement('ism-1691');
    const parsed = parseComponentDefinition(componentDefinition([bare]));
    expect(parsed.errors[0]?.reason).toMatch(/^description: /);
  });

  it('refuses a component definition without its structure', () => {
    expect(rejectionCode(() => parseComponentDefinition({ 'component-definition': { components: 'none' } }))).toBe('invalid_component_definition');
  });
});
