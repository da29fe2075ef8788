import type { DocumentControl } from '../domain/document-model.js';

/**
 * Why a control is excluded: the reason recorded with the decision, else the rule that excluded it
 * (the recommendation's reasons, or the classification's baseline); null when nothing says.
 */
export function exclusionReason(c: DocumentControl, markingName: string): string | null {
  if (c.applicability_comment?.trim()) return c.applicability_comment;
  if (c.recommendation?.value === 'n' && c.recommendation.reasons.length) return `Recommended exclusion: ${c.recommendation.reasons.join(' ')}`;
  if (c.applicability_origin === 'classification_exclusion') return `Not in the ISM's baseline for ${markingName}.`;
  return null;
}
