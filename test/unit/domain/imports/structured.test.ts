import { describe, expect, it } from 'vitest';
import { parseStructured } from '../../../../lib/domain/imports/structured.js';
import { assertionDocument, componentDefinition, formatEntry, jsonBytes, requirement, rejectionCode } from '../../../support/assertion-documents.js';

describe('parseStructured', () => {
  it('reads a document with a component-definition as an OSCAL component definition', () => {
    const parsed = parseStructured(jsonBytes(componentDefinition([requirement('ism-1691', { responsibility: 'provider' }, { remarks: 'Tenants patch.' })])));
    expect(parsed.rows.map((r) => [r.control_id, r.consumer_guidance])).toEqual([['ism-1691', 'Tenants patch.']]);
  });

  it('reads any other document as the service assertion format', () => {
    const parsed = parseStructured(jsonBytes(assertionDocument([formatEntry('ISM-1691')], { ism_version: '2025.12.9' })));
    expect(parsed.rows.map((r) => [r.control_id, r.ism_version])).toEqual([['ism-1691', '2025.12.9']]);
  });

  it('refuses bytes that are not JSON', () => {
    expect(rejectionCode(() => parseStructured(new TextEncoder().encode('Control ID,Responsibility')))).toBe('malformed_json');
  });
});
