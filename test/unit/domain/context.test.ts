import { describe, expect, it } from 'vitest';
import {
  affectsApplicability,
  changedFields,
  completeData,
  contextPatchSchema,
  contextView,
  ORGANISATION_CONTEXT,
  SYSTEM_CONTEXT,
} from '../../../lib/domain/context.js';

const patch = contextPatchSchema(SYSTEM_CONTEXT, 'SystemContext');

describe('contextPatchSchema', () => {
  it('takes an option field by its value and clears a field with null', () => {
    expect(patch.parse({ data: { hosting_model: 'yes', system_description: null }, edit_reason: 'Moved to cloud.' })).toEqual({
      data: { hosting_model: 'yes', system_description: null },
      edit_reason: 'Moved to cloud.',
    });
  });

  it('refuses a value outside the field’s options, at that field', () => {
    expect(patch.safeParse({ data: { hosting_model: 'Yes' } }).error?.issues.map((i) => i.path)).toEqual([['data', 'hosting_model']]);
  });

  it('refuses a field the definition does not have', () => {
    expect(patch.safeParse({ data: { industry_sector: 'finance' } }).success).toBe(false);
  });

  it('refuses data that changes no field', () => {
    expect(patch.safeParse({ data: {} }).success).toBe(false);
  });

  it('refuses text over the field’s length', () => {
    expect(patch.safeParse({ data: { system_description: 'x'.repeat(5001) } }).success).toBe(false);
  });
});

describe('completeData', () => {
  it('answers every field of the definition, null where nothing is recorded, and nothing else', () => {
    expect(completeData(SYSTEM_CONTEXT, { hosting_model: 'no', retired_field: 'x' })).toEqual({
      system_description: null,
      hosting_model: 'no',
      internet_facing_services: null,
      third_party_privileged_access: null,
      data_description: null,
    });
  });
});

describe('contextView', () => {
  it('shows a context never saved with every field null and no author', () => {
    expect(contextView(ORGANISATION_CONTEXT, undefined)).toEqual({
      definition: ORGANISATION_CONTEXT,
      data: completeData(ORGANISATION_CONTEXT, undefined),
      updated_at: null,
      updated_by: null,
    });
  });

  it('shows who changed a saved context last, and when', () => {
    const item = { data: { hosting_model: 'yes' }, updated_at: '2026-01-02T00:00:00.000Z', updated_by: 'U' };
    expect(contextView(SYSTEM_CONTEXT, item)).toMatchObject({ data: { hosting_model: 'yes' }, updated_at: '2026-01-02T00:00:00.000Z', updated_by: 'U' });
  });
});

describe('changedFields', () => {
  it('names the fields whose value the patch changes, not those it sends unchanged or omits', () => {
    expect(
      changedFields({ hosting_model: 'yes', data_description: 'Payroll' }, { hosting_model: 'no', data_description: 'Payroll', system_description: undefined }),
    ).toEqual(['hosting_model']);
  });

  it('takes clearing a field never recorded as no change', () => {
    expect(changedFields({}, { hosting_model: null })).toEqual([]);
  });
});

describe('affectsApplicability', () => {
  it('is true when a changed field drives applicability', () => {
    expect(affectsApplicability(SYSTEM_CONTEXT, ['system_description', 'internet_facing_services'])).toBe(true);
  });

  it('is false when only descriptive fields changed', () => {
    expect(affectsApplicability(SYSTEM_CONTEXT, ['system_description', 'data_description'])).toBe(false);
  });
});
