import type { ReviewReason } from './imports/exactness.js';
import type { ImportedRow } from './imports/rows.js';

/**
 * A release's assertion about one ISM control (issue 14): written by artefact imports, reviewed
 * one by one or in bulk, frozen with its release. Only a confirmed assertion speaks for its
 * release: options find releases by their confirmed assertions.
 */
export const ASSERTION_STATUSES = ['pending', 'confirmed', 'rejected'] as const;
export type AssertionStatus = (typeof ASSERTION_STATUSES)[number];

/** What an import read into an assertion, and how it judged it against the release's ISM version. */
export interface AssertionContent extends Omit<ImportedRow, 'control_id' | 'ism_version'> {
  /** The artefact whose import wrote the assertion last, and the row of it. */
  artefact_id: string;
  /** Whether confirm-exact may confirm it; otherwise why a person has to. */
  exact: boolean;
  review_reason: ReviewReason | null;
  review_detail: string | null;
  imported_at: string;
}

export interface StoredAssertion extends AssertionContent {
  id: string;
  provider_id: string;
  release_id: string;
  /** The ISM catalogue's identifier of the control, lower case (ism-1691). */
  control_id: string;
  status: AssertionStatus;
  version: number;
}

export const isConfirmed = (a: Pick<StoredAssertion, 'status'> | undefined) => a?.status === 'confirmed';
