import { describe, expect, it } from 'vitest';
import {
  invalidReferences,
  logicalKeyOf,
  mergeRowData,
  redactedColumns,
  redactRow,
  rowBodySchema,
  rowReferences,
  rowView,
  rowViewName,
  unreadableReferences,
} from '../../../lib/domain/register-rows.js';
import { definitionById, REGISTER_DEFINITION_IDS as IDS, type RegisterDefinition } from '../../../lib/domain/registers.js';
import { bodyErrors } from '../../../lib/domain/validation.js';
import { buildRegisterRow } from '../../support/factories.js';

const def = (id: string): RegisterDefinition => definitionById(id)!;
const asset = def(IDS.assetRegister);
const thirdParty = def(IDS.thirdPartyRegister);
const SYSTEM_LEVEL = { contacts: true, controls: false, documents: false };
const NO_CONTACTS = { ...SYSTEM_LEVEL, contacts: false };

/** The JSON Pointers of a body's validation errors, or the parsed data. */
function check(d: RegisterDefinition, mode: 'create' | 'update', data: unknown) {
  const result = rowBodySchema(d, mode).safeParse({ data });
  return result.success ? { data: result.data.data } : { pointers: bodyErrors(result.error).map((e) => e.pointer) };
}

describe('rowBodySchema on create', () => {
  it('accepts every column type and trims strings', () => {
    const data = {
      supplier_name: '  Acme  ',
      privileged_access: false,
      assessed_on: '2024-02-29',
      risk_rating: 'high',
      contact: '01JD3Q5Z8X6Y7W2V9T4S3R2P1N',
      notes: null,
    };
    expect(check(thirdParty, 'create', data)).toEqual({ data: { ...data, supplier_name: 'Acme' } });
  });

  it.each([
    ['a missing required column', {}, ['/data/asset_tag', '/data/name']],
    ['null on a required column', { asset_tag: null, name: 'n' }, ['/data/asset_tag']],
    ['a blank string', { asset_tag: '  ', name: 'n' }, ['/data/asset_tag']],
    ['a string over its limit', { asset_tag: 'x'.repeat(65), name: 'n' }, ['/data/asset_tag']],
    ['a number for a string', { asset_tag: 7, name: 'n' }, ['/data/asset_tag']],
    ['an unknown column', { asset_tag: 'a', name: 'n', colour: 'red' }, ['/data/colour']],
    ['a value outside the enum', { asset_tag: 'a', name: 'n', classification: 'os' }, ['/data/classification']],
    ['a date that does not exist', { asset_tag: 'a', name: 'n', decommissioned_on: '2023-02-29' }, ['/data/decommissioned_on']],
    ['a timestamp for a date', { asset_tag: 'a', name: 'n', decommissioned_on: '2024-01-01T00:00:00Z' }, ['/data/decommissioned_on']],
    ['a contact that is not a ULID', { asset_tag: 'a', name: 'n', owner_contact: 'ada' }, ['/data/owner_contact']],
    ['a malformed control reference', { asset_tag: 'a', name: 'n', related_control: 'ISM-12' }, ['/data/related_control']],
    ['a malformed document key', { asset_tag: 'a', name: 'n', supporting_document: 'My SSP' }, ['/data/supporting_document']],
  ])('refuses %s', (_label, data, pointers) => {
    expect(check(asset, 'create', data)).toEqual({ pointers });
  });

  it('takes a boolean only as true or false', () => {
    expect(check(thirdParty, 'create', { supplier_name: 's', privileged_access: 'true' })).toEqual({ pointers: ['/data/privileged_access'] });
  });

  it('takes an integer only as a whole JSON number', () => {
    const summary = def(IDS.controlSummary);
    const row = { dimension: 'workflow_state', value: 'editing' };
    expect(check(summary, 'create', { ...row, controls: 3 })).toEqual({ data: { ...row, controls: 3 } });
    for (const controls of [1.5, '3']) expect(check(summary, 'create', { ...row, controls })).toEqual({ pointers: ['/data/controls'] });
  });
});

describe('rowBodySchema on update', () => {
  it('takes any subset of columns, with null clearing an optional one', () => {
    expect(check(asset, 'update', { location: null, notes: 'n' })).toEqual({ data: { location: null, notes: 'n' } });
  });

  it('refuses null on a required column and an empty patch', () => {
    expect(check(asset, 'update', { name: null })).toEqual({ pointers: ['/data/name'] });
    expect(check(asset, 'update', {})).toEqual({ pointers: ['/data'] });
  });
});

describe('references and redaction', () => {
  it('redacts control and document columns at system level, and contacts without view-contacts', () => {
    expect(redactedColumns(asset, SYSTEM_LEVEL)).toEqual(['related_control', 'supporting_document']);
    expect(redactedColumns(asset, NO_CONTACTS)).toEqual(['owner_contact', 'related_control', 'supporting_document']);
    expect(redactedColumns(asset, { contacts: true, controls: true, documents: true })).toEqual([]);
  });

  it('reports every write to an unreadable column, null included', () => {
    const issues = unreadableReferences(asset, { name: 'n', owner_contact: null, related_control: 'ISM-1234' }, NO_CONTACTS);
    expect(issues.map((i) => [i.pointer, i.code])).toEqual([
      ['/data/owner_contact', 'unreadable_reference'],
      ['/data/related_control', 'unreadable_reference'],
    ]);
  });

  it('lists the references a write sets with their source, not the ones it clears', () => {
    expect(rowReferences(asset, { owner_contact: 'C1', related_control: 'ISM-1234', supporting_document: 'ssp', name: 'x' })).toEqual([
      { column: 'owner_contact', source: 'contacts', value: 'C1' },
      { column: 'related_control', source: 'controls', value: 'ISM-1234' },
      { column: 'supporting_document', source: 'documents', value: 'ssp' },
    ]);
    expect(rowReferences(asset, { owner_contact: null })).toEqual([]);
  });

  it('names each reference that resolves to nothing at its column, with invalid_reference', () => {
    const issues = invalidReferences([{ column: 'related_control', source: 'controls', value: 'ISM-9999' }]);
    expect(issues).toEqual([{ pointer: '/data/related_control', detail: 'is not a control of this project', code: 'invalid_reference' }]);
  });

  const row = buildRegisterRow({ data: { asset_tag: 'A', name: 'N', owner_contact: 'C1' } });

  it('shows every readable column, null when empty, and names the redacted ones', () => {
    const full = rowView(asset, row, SYSTEM_LEVEL);
    expect(full.data).toEqual({
      asset_tag: 'A',
      name: 'N',
      asset_type: null,
      location: null,
      owner_contact: 'C1',
      classification: null,
      notes: null,
      decommissioned_on: null,
    });
    const redacted = rowView(asset, row, NO_CONTACTS);
    expect(redacted.data).not.toHaveProperty('owner_contact');
    expect(redacted.redacted_fields).toEqual(['owner_contact', 'related_control', 'supporting_document']);
    expect(rowViewName(asset, SYSTEM_LEVEL)).not.toBe(rowViewName(asset, NO_CONTACTS));
  });

  it('re-applies redaction to a stored response', () => {
    expect(redactRow(rowView(asset, row, SYSTEM_LEVEL), NO_CONTACTS)).toEqual(rowView(asset, row, NO_CONTACTS));
  });
});

describe('mergeRowData', () => {
  it('keeps omitted columns, sets given ones and removes cleared ones', () => {
    expect(mergeRowData({ a: 'x', b: 1, c: true }, { b: 2, c: null, d: 'new' })).toEqual({ a: 'x', b: 2, d: 'new' });
  });
});

describe('logicalKeyOf', () => {
  it('ignores case, surrounding and repeated white space and compatibility forms', () => {
    expect(logicalKeyOf(asset, { asset_tag: '  Ab  C ' })).toBe(logicalKeyOf(asset, { asset_tag: 'aB c' }));
    expect(logicalKeyOf(asset, { asset_tag: 'ＡＢ' })).toBe(logicalKeyOf(asset, { asset_tag: 'ab' }));
    expect(logicalKeyOf(asset, { asset_tag: 'ab' })).not.toBe(logicalKeyOf(asset, { asset_tag: 'ab2' }));
  });

  it('keeps multi-column keys unambiguous whatever the values contain', () => {
    const directory = def(IDS.contactsDirectory);
    const a = logicalKeyOf(directory, { full_name: 'a", "b', organisation_name: 'c' });
    const b = logicalKeyOf(directory, { full_name: 'a', organisation_name: 'b", "c' });
    expect(a).not.toBe(b);
  });
});
