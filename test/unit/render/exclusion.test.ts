import { describe, expect, it } from 'vitest';
import { exclusionReason } from '../../../lib/render/exclusion.js';
import { documentModel } from '../../support/document-model.js';

const control = documentModel({ limit: 1 }).controls[0]!;
const excluded = {
  ...control,
  applicability: 'n' as const,
  applicability_comment: null,
  recommendation: null,
  applicability_origin: 'explicit_user_choice' as const,
};

describe('exclusionReason', () => {
  it('gives the comment recorded with the decision first', () => {
    const c = { ...excluded, applicability_comment: 'No wireless.', recommendation: { value: 'n' as const, reasons: ['Scope has none.'] } };
    expect(exclusionReason(c, 'PROTECTED')).toBe('No wireless.');
  });

  it("falls back to the recommendation's reasons when the comment is blank", () => {
    const c = { ...excluded, applicability_comment: '  ', recommendation: { value: 'n' as const, reasons: ['No wireless.', 'No radios.'] } };
    expect(exclusionReason(c, 'PROTECTED')).toBe('Recommended exclusion: No wireless. No radios.');
  });

  it("names the classification's baseline for a control excluded by classification", () => {
    expect(exclusionReason({ ...excluded, applicability_origin: 'classification_exclusion' }, 'SECRET')).toBe("Not in the ISM's baseline for SECRET.");
  });

  it('says nothing when no comment, recommendation or baseline explains it', () => {
    expect(exclusionReason(excluded, 'PROTECTED')).toBeNull();
  });
});
