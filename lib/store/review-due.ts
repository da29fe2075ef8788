import { gsi1 } from './keys.js';

/**
 * What falls due for review in a project: a library item's working copy or a project register
 * row. Items that carry a review_due date also carry a sparse GSI1 key ordered by that date, so
 * that the review sweep reads only what is due (one Query up to today) and never every project.
 */
export interface ReviewSubject {
  kind: 'library-item' | 'register-row';
  projectId: string;
  /** The library or register definition the subject belongs to. */
  definitionId: string;
  /** The register row's ULID; for a library item, its definition ULID again (one working copy per definition and project). */
  id: string;
}

const SEPARATOR = '#';

/** The GSI1 attributes an item stores with its review_due date; none without one. Spread them into every whole-item write. */
export function reviewDueKeys(subject: ReviewSubject, reviewDue: string | null | undefined): { GSI1PK?: string; GSI1SK?: string } {
  if (!reviewDue) return {};
  return { GSI1PK: gsi1.reviewDue, GSI1SK: [reviewDue, subject.projectId, subject.kind, subject.definitionId, subject.id].join(SEPARATOR) };
}

/** The subject and date a GSI1 sort key of the review-due index names. */
export function reviewDueOf(sortKey: string): { reviewDue: string; subject: ReviewSubject } | undefined {
  const [reviewDue, projectId, kind, definitionId, id] = sortKey.split(SEPARATOR);
  if (!reviewDue || !projectId || !definitionId || !id || (kind !== 'library-item' && kind !== 'register-row')) return undefined;
  return { reviewDue, subject: { kind, projectId, definitionId, id } };
}
